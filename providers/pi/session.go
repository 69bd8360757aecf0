package pi

import (
	"os"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/provider"
)

// Session parses one session file of Pi (or omp, which kept the format):
// ~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl, JSON Lines whose
// entries form a tree (id/parentId: /tree and /fork branch it), opened by
// a "session" header naming the session id. Each assistant message's usage
// is one meter: the model, the response's tokens, the context it used
// (Pi's footer counts the response's whole usage) against the model's
// window when models.json declares one, and the cost so far (Pi prices
// each response; the session's is their sum, every branch included).
type Session struct {
	agent   string
	path    string
	window  func(provider, model string) int64
	session string
	cost    float64
}

var _ provider.TranscriptParser = (*Session)(nil)

// NewSession parses the file at path for agent (pi or omp); window gives a
// model's context window, 0 when unknown (nil: none known).
func NewSession(agent, path string, window func(provider, model string) int64) *Session {
	return &Session{agent: agent, path: path, window: window}
}

// Reset forgets the file: it was replaced.
func (s *Session) Reset() { s.session, s.cost = "", 0 }

// Parse reads one entry.
func (s *Session) Parse(line []byte, emit func(*event.Event)) error {
	v, err := jsonscan.Decode(line)
	if err != nil {
		return err
	}
	o, _ := v.(map[string]any)
	switch str(o["type"]) {
	case "session":
		s.session = str(o["id"])
	case "message":
		if s.session == "" {
			return nil
		}
		m := obj(o["message"])
		u := obj(m["usage"])
		if str(m["role"]) != "assistant" || u == nil {
			return nil
		}
		e := event.New(event.Meter, s.when(o, m), s.agent, s.session)
		e.Src = event.SrcLog
		e.Transcript = s.path
		e.ID = event.MakeID(event.SrcLog, s.agent, s.session, str(o["id"]), e.T.String())
		e.Model = str(m["model"])
		e.Tokens = &event.Tokens{In: num(u["input"]), Out: num(u["output"]), CacheRead: num(u["cacheRead"]), CacheWrite: num(u["cacheWrite"])}
		used := num(u["totalTokens"])
		if used == 0 {
			used = e.Tokens.Total()
		}
		if used > 0 {
			e.Context = &event.Context{Used: used}
			if s.window != nil {
				if size := s.window(str(m["provider"]), e.Model); size > 0 {
					left := leftPct(used, size)
					e.Context.Size, e.Context.LeftPct = size, &left
				}
			}
		}
		if c, ok := obj(u["cost"])["total"].(float64); ok && c >= 0 && c < 1e9 {
			s.cost += c
		}
		cost := s.cost
		e.CostUSD = &cost
		emit(&e)
	}
	return nil
}

// when is the entry's time: its ISO timestamp, else the message's
// milliseconds, else now.
func (s *Session) when(o, m map[string]any) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, str(o["timestamp"])); err == nil {
		return t
	}
	if ms, ok := m["timestamp"].(float64); ok && ms > 1e12 && ms < 1e14 {
		return time.UnixMilli(int64(ms))
	}
	return time.Now()
}

func leftPct(used, size int64) int {
	u := (used*100 + size/2) / size
	return int(100 - min(100, max(0, u)))
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func str(v any) string         { s, _ := v.(string); return s }
func num(v any) int64 {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int: // YAML's integers
		f = float64(x)
	case uint64:
		f = float64(x)
	}
	if f < 0 || f > 1e15 {
		return 0
	}
	return int64(f)
}

// Models reads the context windows the agent's file of custom providers
// declares: {"providers":{"<p>":{"models":[{"id":…,"contextWindow":…}]}}}
// in JSON (Pi's models.json) or YAML (omp's). Of the files it is given the
// first that exists is the one read, as the agent does, and it is read
// again when it changes or another one takes its place.
type Models struct {
	paths []string
	cur   string // the file read, "" if none was there
	mtime time.Time
	sizes map[string]int64
}

// NewModels reads the models.json at path (which may not exist).
func NewModels(path string) *Models { return &Models{paths: []string{path}} }

// NewModelsFirst reads the first of paths that exists: omp 18.2.3 reads
// models.yml, else models.yaml, and only when neither is there migrates a
// models.json to models.yml (keeping the JSON, which it never reads again).
func NewModelsFirst(paths ...string) *Models { return &Models{paths: paths} }

// Window is the declared window of provider's model, 0 if none.
func (m *Models) Window(provider, model string) int64 {
	path, mtime := "", time.Time{}
	for _, p := range m.paths {
		if fi, err := os.Stat(p); err == nil {
			path, mtime = p, fi.ModTime()
			break
		}
	}
	if m.sizes == nil || path != m.cur || !mtime.Equal(m.mtime) {
		m.cur, m.mtime, m.sizes = path, mtime, map[string]int64{}
		if path != "" {
			m.read(path, !strings.HasSuffix(path, ".json"))
		}
	}
	if n := m.sizes[provider+"\x00"+model]; n > 0 {
		return n
	}
	return m.sizes["\x00"+model]
}

// read adds one file's windows; a file that does not parse adds none.
func (m *Models) read(path string, isYAML bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var v any
	if isYAML {
		err = yaml.Unmarshal(b, &v)
	} else {
		v, err = jsonscan.Decode(b)
	}
	if err != nil {
		return
	}
	for pid, pv := range obj(obj(v)["providers"]) {
		ms, _ := obj(pv)["models"].([]any)
		for _, x := range ms {
			if n := num(obj(x)["contextWindow"]); n > 0 {
				m.sizes[pid+"\x00"+str(obj(x)["id"])] = n
				m.sizes["\x00"+str(obj(x)["id"])] = n
			}
		}
	}
}
