package antigravity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Transcripts      = (*Provider)(nil)
	_ provider.TranscriptParser = (*Steps)(nil)
)

// TranscriptRoots: brain/<conversation>/.system_generated/logs/, where
// agy appends one JSON line per step of the conversation: transcript.jsonl
// and transcript_full.jsonl (the same steps; their events carry the same
// ids and fold once).
func (*Provider) TranscriptRoots(env provider.Env) []provider.Root {
	return []provider.Root{{
		Dir: BrainDir(env),
		Globs: []string{
			"*/.system_generated/logs/transcript.jsonl",
			"*/.system_generated/logs/transcript_full.jsonl",
		},
	}}
}

// NewTranscriptParser returns the parser for one transcript.
func (*Provider) NewTranscriptParser(path string) provider.TranscriptParser { return NewSteps(path) }

// Steps turns an agy transcript into events (src log). Each line is a
// step: {"step_index", "source" (USER_EXPLICIT, SYSTEM, MODEL), "type",
// "status", "created_at", "content", "thinking", "tool_calls"}. A
// USER_INPUT step is a prompt (inside <USER_REQUEST>; a model change rides
// along as <USER_SETTINGS_CHANGE>); a PLANNER_RESPONSE is the model's,
// with tool calls whose arguments are JSON-encoded strings, or the answer
// that ends the turn; a step of any other type from the model is a tool's
// result: step N answers the first call of the latest response before it
// at step N-1 (the next call at N+1, …); a call that was refused has no
// result step at all. Steps may come out of order and repeat (the corpus
// has 10 before 9): each index counts once, and a result that comes
// before its call waits for it.
type Steps struct {
	path      string
	session   string
	named     string             // the transcript its events name (see NewSteps)
	seen      runs               // the step indexes read
	responses map[int64][]string // a response's index → its calls' tool names
	early     map[int64]step     // results whose response is not read yet
	model     string
}

// NewSteps starts a parser for the transcript at path; the conversation
// is the folder brain/<conversation>/.
//
// Events from either file name transcript.jsonl, the transcript agy's
// hooks name: the steps are the same, so a session's state names one file
// whichever of the two was read first (a restart and a full replay read
// them in different orders).
func NewSteps(path string) *Steps {
	s := &Steps{path: path, named: path}
	if filepath.Base(path) == "transcript_full.jsonl" {
		s.named = filepath.Join(filepath.Dir(path), "transcript.jsonl")
	}
	if dir := filepath.Dir(filepath.Dir(filepath.Dir(path))); filepath.Base(filepath.Dir(path)) == "logs" {
		s.session = filepath.Base(dir)
	}
	s.Reset()
	return s
}

// Reset forgets the steps read.
func (s *Steps) Reset() {
	s.seen, s.responses, s.early, s.model = nil, map[int64][]string{}, map[int64]step{}, ""
}

type step struct {
	Index     *int64     `json:"step_index"`
	Source    string     `json:"source"`
	Type      string     `json:"type"`
	Status    string     `json:"status"`
	CreatedAt string     `json:"created_at"`
	Content   string     `json:"content"`
	ToolCalls []stepCall `json:"tool_calls"`
}

type stepCall struct {
	Name string                     `json:"name"`
	Args map[string]json.RawMessage `json:"args"`
}

// Parse handles one step (provider.TranscriptParser).
func (s *Steps) Parse(line []byte, emit func(*event.Event)) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	var st step
	if err := json.Unmarshal(line, &st); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return fmt.Errorf("not a transcript step: %w", err)
		}
	}
	if st.Index == nil || s.session == "" {
		return nil
	}
	if s.seen.has(*st.Index) {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, st.CreatedAt)
	if err != nil {
		return fmt.Errorf("step %d: bad created_at %q", *st.Index, st.CreatedAt)
	}
	s.seen.add(*st.Index)
	key := strconv.FormatInt(*st.Index, 10)
	switch {
	case st.Type == "USER_INPUT":
		if m := modelChange(st.Content); m != "" && m != s.model {
			s.model = m
			e := s.ev(event.Meter, t, key, "model")
			e.Model = m
			emit(&e)
		}
		if text := request(st.Content); text != "" {
			e := s.ev(event.TurnStart, t, key)
			e.Text, e.Model = event.Clamp(text, 2000), s.model
			emit(&e)
		}
	case st.Type == "PLANNER_RESPONSE":
		var names []string
		for i, c := range st.ToolCalls {
			id := key + "." + strconv.Itoa(i)
			names = append(names, c.Name)
			e := s.ev(event.ToolStart, t, id)
			e.Tool, e.ToolID, e.Text = c.Name, s.session+":"+id, summary(c.Args)
			emit(&e)
		}
		if len(names) > 0 {
			s.responses[*st.Index] = names
			for _, r := range slices.Sorted(maps.Keys(s.early)) {
				if s.result(r, s.early[r], emit) {
					delete(s.early, r)
				}
			}
		}
		if len(st.ToolCalls) == 0 && strings.TrimSpace(st.Content) != "" && st.Status == "DONE" {
			e := s.ev(event.TurnEnd, t, key)
			e.Text = event.Clamp(strings.TrimSpace(st.Content), 2000)
			emit(&e)
		}
	case st.Source == "MODEL":
		if !s.result(*st.Index, st, emit) {
			// Only its time and status are needed once its call is read.
			s.early[*st.Index] = step{Index: st.Index, Status: st.Status, CreatedAt: st.CreatedAt}
		}
	}
	return nil
}

// result ends the call step r answers, if its response was read.
func (s *Steps) result(r int64, st step, emit func(*event.Event)) bool {
	q, ok := int64(-1), false
	for i := range s.responses {
		if i < r && i > q {
			q, ok = i, true
		}
	}
	if !ok || r-q-1 >= int64(len(s.responses[q])) {
		return false
	}
	t, _ := time.Parse(time.RFC3339Nano, st.CreatedAt)
	n := r - q - 1
	id := strconv.FormatInt(q, 10) + "." + strconv.FormatInt(n, 10)
	e := s.ev(event.ToolEnd, t, id, "end")
	e.Tool, e.ToolID = s.responses[q][n], s.session+":"+id
	switch strings.ToUpper(st.Status) {
	case "ERROR", "FAILED":
		e.Reason = "error"
	case "CANCELED", "CANCELLED", "DENIED", "REJECTED":
		e.Reason = "denied"
	}
	emit(&e)
	return true
}

func (s *Steps) ev(kind string, t time.Time, parts ...string) event.Event {
	e := event.New(kind, t, ID, s.session)
	e.Src = event.SrcLog
	e.Transcript = s.named
	// Not the file: transcript.jsonl and transcript_full.jsonl hold the
	// same steps.
	e.ID = event.MakeID(append([]string{event.SrcLog, ID, s.session, kind}, parts...)...)
	return e
}

var (
	requestRe = regexp.MustCompile(`(?s)<USER_REQUEST>\s*(.*?)\s*</USER_REQUEST>`)
	modelRe   = regexp.MustCompile("(?s)<USER_SETTINGS_CHANGE>.*?setting `Model Selection` from .*? to (.+?)\\.(?:\\s|$)")
)

// request is what the user typed: the <USER_REQUEST> block, else the
// whole content when it has no block at all.
func request(content string) string {
	if m := requestRe.FindStringSubmatch(content); m != nil {
		return m[1]
	}
	if strings.Contains(content, "<") {
		return ""
	}
	return strings.TrimSpace(content)
}

// modelChange is the model a USER_SETTINGS_CHANGE says was chosen
// ("… from None to Gemini 3.6 Flash (High).").
func modelChange(content string) string {
	if m := modelRe.FindStringSubmatch(content); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// summary is a tool call's short text: its command, path, query or URL
// (each argument is a JSON-encoded string).
func summary(args map[string]json.RawMessage) string {
	for _, k := range []string{"CommandLine", "AbsolutePath", "TargetFile", "DirectoryPath", "FilePath", "SearchPath", "Query", "Url", "Pattern"} {
		if v := argString(args[k]); v != "" {
			return event.Clamp(v, 300)
		}
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "toolAction" && k != "toolSummary" {
			if v := argString(args[k]); v != "" {
				return event.Clamp(v, 300)
			}
		}
	}
	return argString(args["toolSummary"])
}

// argString reads an argument: a string holding JSON (usually a string
// again), or a plain value.
func argString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	var inner string
	if json.Unmarshal([]byte(s), &inner) == nil {
		return strings.TrimSpace(inner)
	}
	return strings.TrimSpace(s)
}
