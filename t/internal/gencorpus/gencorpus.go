// Package gencorpus writes a synthetic Claude Code transcript tree for
// benchmarks: <dir>/projects/<project>/<session>.jsonl plus sub-agent files
// <session>/subagents/agent-<id>.jsonl, in the shapes Claude Code 2.1.x
// writes (one line per streamed content block sharing message.id,
// requestId and usage; tool_use/tool_result pairs with toolUseResult;
// attachments; system turn_duration; metadata lines; interrupts; sessions
// resumed from another that repeat its responses). The same seed and size
// give the same bytes.
package gencorpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Models are the ones ccusage's bundled price table knows.
var Models = []string{"claude-opus-4-6", "claude-sonnet-4-6", "claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5"}

// Stats describes what Generate wrote.
type Stats struct {
	Bytes            int64
	Sessions, Agents int
	Projects         int
}

type gen struct {
	r     *rand.Rand
	dir   string
	t     time.Time
	stats Stats
	words []string
}

// Generate writes about size bytes of transcripts under dir.
func Generate(dir string, size int64, seed uint64) (Stats, error) {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), dir: dir,
		t: time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)}
	g.words = strings.Fields("the a file test func error return value build go run check line code path " +
		"module package type struct read write parse event session agent tool model token context " +
		"fix update add remove rename refactor bench fuzz golden table case handle stream follow")
	nproj := max(2, int(size/(12<<20)))
	projects := make([]string, nproj)
	for i := range projects {
		projects[i] = fmt.Sprintf("-home-dev-src-proj%02d-%s", i, g.word())
	}
	g.stats.Projects = nproj
	var prev []resp // responses of the previous session, for resumes
	for g.stats.Bytes < size {
		proj := projects[g.r.IntN(nproj)]
		var err error
		prev, err = g.session(filepath.Join(dir, "projects", proj), "/home/dev/src/"+proj, prev)
		if err != nil {
			return g.stats, err
		}
	}
	return g.stats, nil
}

// resp is one model response as written (its lines), kept for resumes.
type resp struct{ lines []string }

func (g *gen) word() string { return g.words[g.r.IntN(len(g.words))] }

func (g *gen) text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(g.word())
		switch g.r.IntN(12) {
		case 0:
			b.WriteString(".\n")
		case 1:
			b.WriteString(", ")
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// size draws a heavy-tailed length: mostly small, sometimes tens of KB.
func (g *gen) size(median float64) int {
	return int(median * math.Exp(g.r.NormFloat64()*1.3))
}

func (g *gen) uuid() string {
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", g.r.Uint32(), g.r.Uint32()&0xffff,
		g.r.Uint32()&0xfff, 0x8000|g.r.Uint32()&0x3fff, g.r.Uint64()&0xffffffffffff)
}

func (g *gen) id(prefix string, n int) string {
	const abc = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := []byte(prefix)
	for range n {
		b = append(b, abc[g.r.IntN(len(abc))])
	}
	return string(b)
}

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (g *gen) ts() string {
	g.t = g.t.Add(time.Duration(200+g.r.IntN(9000)) * time.Millisecond)
	return g.t.Format("2006-01-02T15:04:05.000Z")
}

// file is one transcript being written.
type file struct {
	g       *gen
	w       *bufio.Writer
	f       *os.File
	session string
	cwd     string
	agent   string // sub-agent id, "" for the main file
	parent  string
	ctx     int64 // context size so far
}

func (g *gen) open(path, session, cwd, agent string) (*file, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &file{g: g, w: bufio.NewWriterSize(f, 256<<10), f: f, session: session, cwd: cwd, agent: agent,
		ctx: int64(12000 + g.r.IntN(20000))}, nil
}

func (f *file) close() error {
	if err := f.w.Flush(); err != nil {
		return err
	}
	return f.f.Close()
}

func (f *file) put(line string) {
	f.w.WriteString(line)
	f.w.WriteByte('\n')
	f.g.stats.Bytes += int64(len(line) + 1)
}

// env is the envelope's tail every main-thread line ends with.
func (f *file) env(uuid string) string {
	side := ""
	if f.agent != "" {
		side = `,"agentId":"` + f.agent + `"`
	}
	return fmt.Sprintf(`"uuid":"%s","timestamp":"%s","userType":"external","entrypoint":"cli","cwd":%s,"sessionId":"%s","version":"2.1.233","gitBranch":"main"%s}`,
		uuid, f.g.ts(), q(f.cwd), f.session, side)
}

func (f *file) head() string {
	return fmt.Sprintf(`{"parentUuid":"%s","isSidechain":%t,`, f.parent, f.agent != "")
}

func (f *file) user(promptID, content string, extra string) {
	u := f.g.uuid()
	pid := ""
	if promptID != "" {
		pid = `"promptId":"` + promptID + `",`
	}
	f.put(f.head() + pid + `"type":"user","message":{"role":"user","content":` + content + `},` + extra + f.env(u))
	f.parent = u
}

func (f *file) attachment(body string) {
	u := f.g.uuid()
	f.put(f.head() + `"attachment":` + body + `,"type":"attachment",` + f.env(u))
	f.parent = u
}

// response writes one model response as one line per content block.
func (f *file) response(model string, blocks []string, stop string) resp {
	g := f.g
	mid, req := g.id("msg_01", 22), g.id("req_01", 22)
	write := int64(g.r.IntN(3000))
	if g.r.IntN(20) == 0 {
		write += int64(g.r.IntN(30000))
	}
	read := f.ctx
	f.ctx += write + int64(g.r.IntN(2000))
	if f.ctx > 180000 && g.r.IntN(3) == 0 {
		f.ctx = int64(20000 + g.r.IntN(20000)) // compacted
	}
	in := int64(1 + g.r.IntN(8))
	out := int64(20 + g.size(300))
	usage := fmt.Sprintf(`{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d,"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard","cache_creation":{"ephemeral_1h_input_tokens":%d,"ephemeral_5m_input_tokens":0}}`,
		in, write, read, out, write)
	var r resp
	for _, b := range blocks {
		u := g.uuid()
		line := f.head() + fmt.Sprintf(`"message":{"model":"%s","id":"%s","type":"message","role":"assistant","content":[%s],"stop_reason":"%s","stop_sequence":null,"usage":%s},"requestId":"%s","type":"assistant",`,
			model, mid, b, stop, usage, req) + f.env(u)
		f.put(line)
		r.lines = append(r.lines, line)
		f.parent = u
	}
	return r
}

// tools are drawn for tool_use; Task (a sub-agent) is rarer, as in life.
var tools = []string{"Bash", "Read", "Edit", "Write", "Grep", "Glob", "TodoWrite", "WebFetch"}

func (g *gen) tool() string {
	if g.r.IntN(60) == 0 {
		return "Task"
	}
	return tools[g.r.IntN(len(tools))]
}

func (g *gen) session(projDir, cwd string, prev []resp) ([]resp, error) {
	sid := g.uuid()
	f, err := g.open(filepath.Join(projDir, sid+".jsonl"), sid, cwd, "")
	if err != nil {
		return nil, err
	}
	g.stats.Sessions++
	model := Models[g.r.IntN(4)]
	f.put(`{"type":"mode","mode":"normal","sessionId":"` + sid + `"}`)
	f.put(`{"type":"permission-mode","permissionMode":"default","sessionId":"` + sid + `"}`)
	f.attachment(`{"type":"hook_success","hookName":"SessionStart:startup","toolUseID":"` + g.uuid() + `","hookEvent":"SessionStart","content":"","stdout":` + q(g.text(g.size(400))) + `,"stderr":"","exitCode":0,"command":"ag-hook claude","durationMs":12}`)
	var resps []resp
	if len(prev) > 0 && g.r.IntN(8) == 0 {
		// A resumed session starts with responses copied from the last one.
		for _, r := range prev[:min(len(prev), 1+g.r.IntN(6))] {
			for _, l := range r.lines {
				f.put(l)
			}
		}
	}
	turns := 1 + int(g.size(8))
	if g.r.IntN(30) == 0 {
		turns = 150 + g.r.IntN(200) // a long-running session
	}
	for turn := 0; turn < turns; turn++ {
		pid := g.uuid()
		f.put(`{"type":"file-history-snapshot","messageId":"` + g.uuid() + `","snapshot":{"trackedFileBackups":{},"timestamp":"` + g.t.Format(time.RFC3339) + `"},"isSnapshotUpdate":false}`)
		if g.r.IntN(15) == 0 {
			f.user(pid, q("<command-name>/"+g.word()+"</command-name>\n<command-message>"+g.word()+"</command-message>\n<command-args></command-args>"), "")
		}
		f.user(pid, q(g.text(g.size(200))), `"permissionMode":"default","origin":{"kind":"human"},"promptSource":"typed",`)
		f.put(`{"type":"last-prompt","lastPrompt":` + q(g.text(80)) + `,"leafUuid":"` + f.parent + `","sessionId":"` + sid + `"}`)
		f.attachment(`{"type":"total_tokens_reminder","text":"<total_tokens>15000000 tokens left</total_tokens>"}`)
		steps := int(g.size(3))
		interrupted := g.r.IntN(25) == 0
		for step := 0; step <= steps; step++ {
			last := step == steps
			blocks := []string{}
			if g.r.IntN(2) == 0 {
				blocks = append(blocks, `{"type":"thinking","thinking":"","signature":`+q(g.id("", g.size(600)))+`}`)
			}
			blocks = append(blocks, `{"type":"text","text":`+q(g.text(g.size(250)))+`}`)
			if last {
				if interrupted {
					break
				}
				resps = append(resps, f.response(model, blocks, "end_turn"))
				break
			}
			ntool := 1
			if g.r.IntN(6) == 0 {
				ntool = 2 + g.r.IntN(3)
			}
			var ids, names []string
			for range ntool {
				name := g.tool()
				id := g.id("toolu_01", 22)
				ids, names = append(ids, id), append(names, name)
				blocks = append(blocks, `{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":`+g.input(name, cwd)+`,"caller":{"type":"direct"}}`)
			}
			resps = append(resps, f.response(model, blocks, "tool_use"))
			for i, id := range ids {
				if names[i] == "Task" {
					if err := g.subagent(projDir, sid, cwd); err != nil {
						return nil, err
					}
				}
				if g.r.IntN(3) == 0 {
					f.attachment(`{"type":"hook_success","hookName":"PreToolUse:` + names[i] + `","toolUseID":"` + id + `","hookEvent":"PreToolUse","content":"","stdout":"","stderr":"","exitCode":0,"command":"ag-hook claude","durationMs":3}`)
				}
				out := g.text(g.size(900))
				isErr := g.r.IntN(15) == 0
				f.user(pid, fmt.Sprintf(`[{"tool_use_id":"%s","type":"tool_result","content":%s,"is_error":%t}]`, id, q(out), isErr),
					`"toolUseResult":`+g.result(names[i], out)+`,"sourceToolAssistantUUID":"`+f.parent+`",`)
			}
		}
		if interrupted {
			f.user(pid, `[{"type":"text","text":"[Request interrupted by user]"}]`, `"interruptedMessageId":"`+g.id("msg_01", 22)+`",`)
			continue
		}
		u := g.uuid()
		f.put(f.head() + `"type":"system","subtype":"turn_duration","durationMs":` + fmt.Sprint(1000+g.r.IntN(90000)) + `,"messageCount":12,"isMeta":false,` + f.env(u))
		f.parent = u
		if g.r.IntN(4) == 0 {
			f.put(`{"type":"ai-title","aiTitle":` + q(g.text(30)) + `,"sessionId":"` + sid + `"}`)
		}
	}
	return resps, f.close()
}

func (g *gen) input(name, cwd string) string {
	file := cwd + "/" + g.word() + "/" + g.word() + ".go"
	switch name {
	case "Bash":
		return `{"command":` + q("go test ./"+g.word()+"/... 2>&1 | tail -20") + `,"description":` + q(g.text(30)) + `}`
	case "Read":
		return `{"file_path":` + q(file) + `}`
	case "Edit":
		return `{"file_path":` + q(file) + `,"old_string":` + q(g.text(g.size(200))) + `,"new_string":` + q(g.text(g.size(200))) + `}`
	case "Write":
		return `{"file_path":` + q(file) + `,"content":` + q(g.text(g.size(1500))) + `}`
	case "Grep", "Glob":
		return `{"pattern":` + q(g.word()) + `,"path":` + q(cwd) + `}`
	case "TodoWrite":
		return `{"todos":[{"content":` + q(g.text(40)) + `,"status":"in_progress","activeForm":` + q(g.text(30)) + `}]}`
	case "WebFetch":
		return `{"url":"https://example.com/` + g.word() + `","prompt":` + q(g.text(60)) + `}`
	}
	return `{"description":` + q(g.text(30)) + `,"prompt":` + q(g.text(g.size(400))) + `,"subagent_type":"general-purpose"}`
}

func (g *gen) result(name, out string) string {
	switch name {
	case "Bash":
		return `{"stdout":` + q(out) + `,"stderr":"","interrupted":false,"isImage":false}`
	case "Edit":
		return `{"filePath":"x.go","oldString":"a","newString":"b","originalFile":` + q(g.text(g.size(6000))) + `,"structuredPatch":[],"userModified":false,"replaceAll":false}`
	case "Read":
		return `{"type":"text","file":{"filePath":"x.go","content":` + q(out) + `,"numLines":40,"startLine":1,"totalLines":40}}`
	case "Task":
		return `{"status":"completed","prompt":"p","content":[{"type":"text","text":` + q(out) + `}],"totalDurationMs":5000,"totalTokens":1234,"usage":{"input_tokens":1,"output_tokens":2}}`
	}
	return q(out)
}

func (g *gen) subagent(projDir, sid, cwd string) error {
	aid := fmt.Sprintf("a%016x", g.r.Uint64())
	f, err := g.open(filepath.Join(projDir, sid, "subagents", "agent-"+aid+".jsonl"), sid, cwd, aid)
	if err != nil {
		return err
	}
	g.stats.Agents++
	model := Models[4]
	if g.r.IntN(3) == 0 {
		model = Models[1]
	}
	f.parent = ""
	pid := g.uuid()
	f.user(pid, q(g.text(g.size(300))), "")
	steps := int(g.size(4))
	for step := 0; step <= steps; step++ {
		if step == steps {
			f.response(model, []string{`{"type":"text","text":` + q(g.text(g.size(300))) + `}`}, "end_turn")
			break
		}
		id := g.id("toolu_01", 22)
		f.response(model, []string{`{"type":"tool_use","id":"` + id + `","name":"Read","input":{"file_path":"` + cwd + `/x.go"}}`}, "tool_use")
		out := g.text(g.size(900))
		f.user(pid, fmt.Sprintf(`[{"tool_use_id":"%s","type":"tool_result","content":%s}]`, id, q(out)), `"toolUseResult":`+g.result("Read", out)+`,`)
	}
	return f.close()
}
