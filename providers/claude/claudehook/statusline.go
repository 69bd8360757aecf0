package claudehook

import (
	"cmp"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/provider"
)

// Status is what one statusLine payload says, read leniently: Claude's
// statusLine stdin grows fields release by release, sends nulls before the
// first API call and after /compact, and a hand-run or broken caller may
// send anything. A field that is missing, null or of the wrong type is
// simply absent here; nothing in the payload makes reading it fail but
// bytes that are not JSON at all.
type Status struct {
	Agent      string // whose payload: Claude's (ID), or an agent's fed the same shape
	Session    string
	Prompt     string // prompt_id (v2.1.196+)
	Transcript string
	Cwd        string // workspace.current_dir, else cwd
	ProjectDir string
	Version    string
	ModelID    string // as Claude names it, e.g. "claude-opus-4-6[1m]"
	ModelName  string // display_name, e.g. "Opus 4.6 (1M context)"
	CostUSD    *float64
	Context    *event.Context
	Limits     []event.Limit
}

// Rate-limit windows Claude publishes (Pro/Max, after the first response);
// the statusLine payload is the only place it does.
var statusWindows = []struct {
	key     string
	name    string
	minutes int
}{
	{"five_hour", "5h", 300},
	{"seven_day", "7d", 7 * 24 * 60},
}

// ParseStatus reads a statusLine payload. It fails only on bytes that are
// not one JSON object; the caller still prints a line then. The payload is
// decoded into plain maps, not structs, and each leaf is read leniently on
// its own.
func ParseStatus(payload []byte) (Status, error) { return ParseStatusOf(ID, payload) }

// ParseStatusOf reads the statusLine payload of agent, which feeds its
// status-line command Claude's shape (Qwen Code: context_window's
// current_usage a number of tokens, its size 0 for a model it does not
// know, no cost, no transcript path).
func ParseStatusOf(agent string, payload []byte) (Status, error) {
	// A number past float64 (1e400) decodes as null: only that value is
	// lost. jsonscan rather than encoding/json: ag-hook links no JSON
	// library for this alone (a hook is a process start; see doc/performance.md).
	root, err := jsonscan.Decode(payload)
	if err != nil {
		return Status{Agent: agent}, err
	}
	p, ok := root.(map[string]any)
	if !ok {
		return Status{Agent: agent}, errors.New("not a JSON object")
	}
	s := Status{
		Agent:      agent,
		Session:    jsonStr(p, "session_id"),
		Prompt:     jsonStr(p, "prompt_id"),
		Transcript: jsonStr(p, "transcript_path"),
		Cwd:        jsonStr(p, "cwd"),
		Version:    jsonStr(p, "version"),
	}
	if ws := jsonObj(p, "workspace"); ws != nil {
		if d := jsonStr(ws, "current_dir"); d != "" {
			s.Cwd = d
		}
		s.ProjectDir = jsonStr(ws, "project_dir")
	}
	if m := jsonObj(p, "model"); m != nil {
		s.ModelID, s.ModelName = jsonStr(m, "id"), jsonStr(m, "display_name")
	}
	if v, ok := jsonNum(jsonObj(p, "cost"), "total_cost_usd"); ok && v >= 0 {
		s.CostUSD = &v
	}
	if cw := jsonObj(p, "context_window"); cw != nil {
		s.Context = statusContext(agent, s.ModelID, cw)
	}
	if rl := jsonObj(p, "rate_limits"); rl != nil {
		for _, w := range statusWindows {
			win := jsonObj(rl, w.key)
			used, ok := jsonNum(win, "used_percentage")
			if !ok {
				continue // a window without its share says nothing
			}
			l := event.Limit{Window: w.name, UsedPct: clampPct(used), Minutes: w.minutes}
			if t, ok := jsonEpoch(win["resets_at"]); ok {
				l.ResetsAt = event.Ptr(t)
			}
			s.Limits = append(s.Limits, l)
		}
	}
	return s, nil
}

// statusContext is the context meter: used = what the last request sent
// (input + cache writes + cache reads, the formula behind Claude's own
// used_percentage); left_pct from used_percentage when Claude gives it,
// else remaining_percentage, else computed as Claude shows it. Before the
// first call and after /compact there is no usage: no meter then, rather
// than a false zero. Another agent's usage may be one number; with no
// size its window is not known (Claude's is guessed from the model).
func statusContext(agent, model string, cw map[string]any) *event.Context {
	size := int64(0)
	if v, ok := jsonNum(cw, "context_window_size"); ok && v > 0 && v < 1e12 {
		size = int64(v)
	}
	used, haveUsed := int64(0), false
	if v, ok := jsonNum(cw, "current_usage"); ok && v > 0 && v < 1e12 {
		used, haveUsed = int64(v), true
	}
	if u := jsonObj(cw, "current_usage"); u != nil {
		for _, k := range []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"} {
			if v, ok := jsonNum(u, k); ok && v > 0 && v < 1e12 {
				used += int64(v)
				haveUsed = true
			}
		}
	}
	usedPct, havePct := jsonNum(cw, "used_percentage")
	if !haveUsed && havePct && size > 0 {
		used, haveUsed = int64(math.Round(clampPct(usedPct)*float64(size)/100)), true
	}
	if !haveUsed || size == 0 && agent != ID {
		return nil
	}
	if size == 0 {
		size = ContextWindow(model, used)
	}
	var left int
	if rem, ok := jsonNum(cw, "remaining_percentage"); havePct || ok {
		if havePct {
			left = 100 - int(math.Round(clampPct(usedPct)))
		} else {
			left = int(math.Round(clampPct(rem)))
		}
	} else {
		left = LeftPct(used, size)
	}
	return &event.Context{Used: used, Size: size, LeftPct: &left}
}

func clampPct(v float64) float64 { return min(100, max(0, v)) }

// APIModel is the model as the API (and so the transcript) names it: the
// "[1m]" Claude Code appends for the 1M-token window is dropped, so the
// statusline and ag-tail's meters agree and the folded state does not
// flip between two spellings. The window itself is in context.size.
func APIModel(id string) string {
	if i := strings.IndexByte(id, '['); i > 0 && strings.HasSuffix(id, "]") {
		return id[:i]
	}
	return id
}

// Meter is the status as a meter event (src statusline) at hc.Now, with
// where it ran; nil when Session is empty: a meter for no session
// cannot be folded.
func (s *Status) Meter(hc provider.HookContext) *event.Event {
	if s.Session == "" {
		return nil
	}
	// On the heap and filled in place: an Event is 552 bytes, and copies
	// of it on the stack made a statusline process grow its stacks twice.
	e := &event.Event{V: event.Version, T: event.At(hc.Now), Kind: event.Meter, Agent: cmp.Or(s.Agent, ID), Session: s.Session}
	e.Src = event.SrcStatusline
	e.Run = s.Prompt
	hc.Place(e, s.Cwd)
	if e.Agent == ID {
		dialect.Background.Mark(e, &hc) // a background session's: no pane
	}
	e.Transcript = s.Transcript
	e.Model = APIModel(s.ModelID)
	e.Text = s.ModelName
	e.CostUSD, e.Context, e.Limits = s.CostUSD, s.Context, s.Limits
	// Unique per moment and reading: the same meter twice in one
	// millisecond folds once, while a value that comes back later (and a
	// transcript meter between) is still a new observation.
	e.ID = event.MakeID(event.SrcStatusline, s.Session, e.T.UTC().Format(event.Layout), s.Signature())
	return e
}

// Signature is the meters' values as one string: equal signatures mean
// an identical reading, so a repeat need not be appended.
func (s *Status) Signature() string {
	var b []byte
	b = append(b, s.ModelID...)
	b = append(b, 0)
	b = append(b, s.Prompt...)
	b = append(b, 0)
	if s.CostUSD != nil {
		b = strconv.AppendFloat(b, *s.CostUSD, 'g', -1, 64)
	}
	b = append(b, 0)
	if c := s.Context; c != nil {
		b = strconv.AppendInt(b, c.Used, 10)
		b = append(b, '/')
		b = strconv.AppendInt(b, c.Size, 10)
		if c.LeftPct != nil {
			b = append(b, '/')
			b = strconv.AppendInt(b, int64(*c.LeftPct), 10)
		}
	}
	for _, l := range s.Limits {
		b = append(b, 0)
		b = append(b, l.Window...)
		b = append(b, ' ')
		b = strconv.AppendFloat(b, l.UsedPct, 'g', -1, 64)
		if l.ResetsAt != nil {
			b = append(b, ' ')
			b = strconv.AppendInt(b, l.ResetsAt.Unix(), 10)
		}
	}
	return string(b)
}

// Lenient readers of a decoded payload: anything missing, null or of
// another type reads as absent, never as an error.

// jsonObj is m[k] if it is an object (m may be nil).
func jsonObj(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}

// jsonStr is m[k] if it is a string.
func jsonStr(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// jsonNum is m[k] if it is a finite number, or a string holding one.
func jsonNum(m map[string]any, k string) (float64, bool) {
	return jsonNumber(m[k])
}

func jsonNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true // JSON has no NaN or Inf
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
	}
	return 0, false
}

// Epoch bounds: a resets_at outside 2001..2200 is garbage, not a time.
const (
	minEpoch = 1_000_000_000
	maxEpoch = 7_258_118_400
)

// jsonEpoch reads resets_at: epoch seconds as Claude sends it (milliseconds
// are recognised by size), or an RFC 3339 string.
func jsonEpoch(v any) (time.Time, bool) {
	if s, ok := v.(string); ok {
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(s)); err == nil {
			return t.UTC(), true
		}
	}
	f, ok := jsonNumber(v)
	if !ok {
		return time.Time{}, false
	}
	if f > maxEpoch*100 { // far past any epoch second: milliseconds
		f /= 1000
	}
	if f < minEpoch || f > maxEpoch {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), true
}
