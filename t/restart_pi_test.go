package t

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// TestRestartPiSessions: Pi session files (as 0.73.1 writes them: nothing
// until the first response, then everything so far at once, then one
// entry a write; a tool runs between its call and its result) written
// while the pipeline is killed at random moments and started again: every
// session ends with the tokens and the cost its file holds, each response
// counted once, and the states a full replay folds.
func TestRestartPiSessions(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, ".pi", "agent", "sessions", "--tmp-w--")
	os.MkdirAll(dir, 0o755)
	ag := filepath.Join(home, ".ag")
	env := []string{"HOME=" + home, "AG_DIR=" + ag, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, "claude"), "CODEX_HOME=" + home + "/codex"}

	const sessions = 3
	type sess struct {
		id, path, parent string
		lines            []string // entries not written yet: no response so far
		f                *os.File
		tok              event.Tokens // what its meters add up to
		cost             float64
	}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	stamp := func() time.Time { at = at.Add(time.Second); return at }
	n := 0
	entry := func(s *sess, typ, rest string) { // one entry, child of the last
		n++
		id := fmt.Sprintf("%08x", 0x1b2c0000+n)
		parent := "null"
		if s.parent != "" {
			parent = `"` + s.parent + `"`
		}
		s.parent = id
		s.lines = append(s.lines, fmt.Sprintf(`{"type":"%s","id":"%s","parentId":%s,"timestamp":"%s",%s}`+"\n", typ, id, parent, stamp().Format("2006-01-02T15:04:05.000Z"), rest))
	}
	flush := func(s *sess) { // Pi's persist: once a response is there
		if s.f == nil {
			f, err := os.Create(s.path)
			if err != nil {
				t.Error(err)
				return
			}
			s.f = f
			s.f.WriteString(strings.Join(s.lines, ""))
		} else {
			for _, l := range s.lines {
				s.f.WriteString(l)
			}
		}
		s.lines = nil
	}
	var ss []*sess
	for i := range sessions {
		s := &sess{id: fmt.Sprintf("01a31b%02x-6c2d-7000-8000-5e4f3a2b1c0d", i)}
		t0 := stamp()
		s.path = filepath.Join(dir, strings.NewReplacer(":", "-", ".", "-").Replace(t0.Format("2006-01-02T15:04:05.000Z"))+"_"+s.id+".jsonl")
		s.lines = []string{fmt.Sprintf(`{"type":"session","version":3,"id":"%s","timestamp":"%s","cwd":"/tmp/w"}`+"\n", s.id, t0.Format("2006-01-02T15:04:05.000Z"))}
		entry(s, "model_change", `"provider":"fake","modelId":"fake-model"`)
		entry(s, "thinking_level_change", `"thinkingLevel":"off"`)
		defer func() {
			if s.f != nil {
				s.f.Close()
			}
		}()
		ss = append(ss, s)
	}
	r := rand.New(rand.NewPCG(7, 8))
	var mu sync.Mutex
	write := func() { // one turn of one session
		mu.Lock()
		defer mu.Unlock()
		s := ss[r.IntN(sessions)]
		entry(s, "message", fmt.Sprintf(`"message":{"role":"user","content":[{"type":"text","text":"go %d"}],"timestamp":%d}`, n, at.UnixMilli()))
		flush(s)
		calls := r.IntN(3)
		for k := 0; k <= calls; k++ {
			in, out, hit := int64(900+n), int64(10+n%7), int64(100*k)
			if k == calls && r.IntN(8) == 0 { // Escape: the answer aborted
				entry(s, "message", fmt.Sprintf(`"message":{"role":"assistant","content":[],"api":"openai-completions","provider":"fake","model":"fake-model","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"aborted","errorMessage":"Request was aborted","timestamp":%d}`, at.UnixMilli()))
				flush(s)
				break
			}
			ci, co, ch := float64(in)*1e-6, float64(out)*4e-6, float64(hit)*1e-7
			total := ci + co + ch
			s.tok.In, s.tok.Out, s.tok.CacheRead = s.tok.In+in, s.tok.Out+out, s.tok.CacheRead+hit
			s.cost += total
			content, stop := fmt.Sprintf(`{"type":"text","text":"done %d"}`, n), "stop"
			if k < calls {
				content, stop = fmt.Sprintf(`{"type":"toolCall","id":"call_%d","name":"bash","arguments":{"command":"ls"}}`, n), "toolUse"
			}
			entry(s, "message", fmt.Sprintf(`"message":{"role":"assistant","content":[%s],"api":"openai-completions","provider":"fake","model":"fake-model","usage":{"input":%d,"output":%d,"cacheRead":%d,"cacheWrite":0,"totalTokens":%d,"cost":{"input":%v,"output":%v,"cacheRead":%v,"cacheWrite":0,"total":%v}},"stopReason":"%s","timestamp":%d}`,
				content, in, out, hit, in+out+hit, ci, co, ch, total, stop, at.UnixMilli()))
			flush(s)
			if k == calls {
				break
			}
			// Its call runs, then its result is written.
			call := n
			mu.Unlock()
			time.Sleep(time.Duration(r.IntN(30)) * time.Millisecond)
			mu.Lock()
			entry(s, "message", fmt.Sprintf(`"message":{"role":"toolResult","toolCallId":"call_%d","toolName":"bash","content":[{"type":"text","text":"a.txt"}],"isError":false,"timestamp":%d}`, call, at.UnixMilli()))
			flush(s)
		}
	}
	restarts(t, env, ag, write, func(states []event.Event) (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		ok := len(states) == sessions
		var got []string
		for _, st := range states {
			for _, s := range ss {
				if st.Session != s.id {
					continue
				}
				if st.Tokens == nil || *st.Tokens != s.tok || st.CostUSD == nil || math.Abs(*st.CostUSD-s.cost) > 1e-9 {
					ok = false
				}
				if st.Tokens != nil && st.CostUSD != nil {
					got = append(got, fmt.Sprintf("%s in %d/%d out %d/%d cache %d/%d cost %.6f/%.6f %s", s.id[:8], st.Tokens.In, s.tok.In, st.Tokens.Out, s.tok.Out, st.Tokens.CacheRead, s.tok.CacheRead, *st.CostUSD, s.cost, st.Status))
				}
			}
		}
		return ok, strings.Join(got, "\n")
	}, nil)
	checkpointsKept(t, ag, "/sessions/--tmp-w--/", `"session":"`)
	t.Logf("%d entries", n)
}

// TestRestartAntigravity: agy transcripts (a step a line, in
// transcript.jsonl and again in transcript_full.jsonl; a tool's result at
// times written before the response that calls it, and again after) written
// while the pipeline is killed at random moments and started again: every
// conversation ends with its last answer, no call left running, and the
// states a full replay folds.
func TestRestartAntigravity(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	brain := filepath.Join(home, ".gemini", "antigravity-cli", "brain")
	ag := filepath.Join(home, ".ag")
	env := []string{"HOME=" + home, "AG_DIR=" + ag, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, "claude"), "CODEX_HOME=" + home + "/codex"}

	const sessions = 3
	type conv struct {
		id     string
		fs     []*os.File // transcript.jsonl, transcript_full.jsonl
		step   int64
		answer string // the last one written
	}
	at := time.Date(2026, 12, 4, 14, 0, 0, 0, time.UTC)
	var cs []*conv
	for i := range sessions {
		c := &conv{id: fmt.Sprintf("9a8b7c%02x-5e4f-4a3b-8c2d-1e0f9a8b7c6d", i)}
		logs := filepath.Join(brain, c.id, ".system_generated", "logs")
		os.MkdirAll(logs, 0o755)
		for _, name := range []string{"transcript.jsonl", "transcript_full.jsonl"} {
			f, err := os.Create(filepath.Join(logs, name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c.fs = append(c.fs, f)
		}
		cs = append(cs, c)
	}
	put := func(c *conv, i int64, source, typ, status, rest string) { // one step
		at = at.Add(time.Second)
		l := fmt.Sprintf(`{"step_index":%d,"source":"%s","type":"%s","status":"%s","created_at":"%s"%s}`+"\n", i, source, typ, status, at.Format(time.RFC3339), rest)
		for _, f := range c.fs {
			f.WriteString(l)
		}
	}
	n := 0
	r := rand.New(rand.NewPCG(9, 10))
	var mu sync.Mutex
	write := func() { // one turn of one conversation
		mu.Lock()
		defer mu.Unlock()
		c := cs[r.IntN(sessions)]
		n++
		prompt := fmt.Sprintf(`<USER_REQUEST>\nbuild %d\n</USER_REQUEST>`, n)
		if c.step == 0 {
			prompt += "\\n<USER_SETTINGS_CHANGE>\\nThe user changed setting `Model Selection` from None to Gemini 3.6 Flash (High). No need to comment on this change.\\n</USER_SETTINGS_CHANGE>"
		}
		put(c, c.step, "USER_EXPLICIT", "USER_INPUT", "DONE", `,"content":"`+prompt+`"`)
		c.step++
		for range r.IntN(3) { // responses with calls
			calls := 1 + r.IntN(2)
			resp := fmt.Sprintf(`,"tool_calls":[%s]`, strings.Repeat(`{"name":"run_command","args":{"CommandLine":"\"go build ./...\"","toolAction":"\"Running command\"","toolSummary":"\"Build\""}},`, calls))
			resp = strings.Replace(resp, "},]", "}]", 1)
			i := c.step
			early := calls == 1 && r.IntN(4) == 0 // its result first, then again
			if early {
				put(c, i+1, "MODEL", "RUN_COMMAND", "DONE", `,"content":"Exit code: 0"`)
			}
			put(c, i, "MODEL", "PLANNER_RESPONSE", "DONE", resp)
			// The calls run, then their results are written.
			mu.Unlock()
			time.Sleep(time.Duration(r.IntN(30)) * time.Millisecond)
			mu.Lock()
			for k := range int64(calls) {
				status := "DONE"
				if r.IntN(5) == 0 {
					status = "ERROR"
				}
				put(c, i+1+k, "MODEL", "RUN_COMMAND", status, `,"content":"Exit code: 0"`)
			}
			c.step += 1 + int64(calls)
		}
		c.answer = fmt.Sprintf("built %d", n)
		put(c, c.step, "MODEL", "PLANNER_RESPONSE", "DONE", `,"content":"`+c.answer+`"`)
		c.step++
	}
	restarts(t, env, ag, write, func(states []event.Event) (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		ok := len(states) == sessions
		var got []string
		for _, st := range states {
			for _, c := range cs {
				if st.Session == c.id {
					ok = ok && st.Text == c.answer && st.Tool == ""
					got = append(got, fmt.Sprintf("%s %q/%q %s %s", c.id[:8], st.Text, c.answer, st.Status, st.Tool))
				}
			}
		}
		return ok, strings.Join(got, "\n")
	}, nil)
	checkpointsKept(t, ag, "/.system_generated/logs/transcript", `"seen":[`)
	t.Logf("%d turns", n)
}
