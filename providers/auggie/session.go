package auggie

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/auggie/auggiehook"
	"github.com/agwatch/ag/providers/internal/toolargs"
	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Transcripts     = (*Provider)(nil)
	_ provider.WholeFileParser = (*Session)(nil)
	_ provider.Checkpointer    = (*Session)(nil)
)

// TranscriptRoots: ~/.augment/sessions/<conversation id>.json.
func (*Provider) TranscriptRoots(env provider.Env) []provider.Root {
	return []provider.Root{{Dir: SessionsDir(env), Globs: []string{"*.json"}}}
}

// NewTranscriptParser returns the parser for one session file.
func (*Provider) NewTranscriptParser(path string) provider.TranscriptParser { return NewSession(path) }

// DefaultWindow is the context window Auggie measures against when the
// usage names none (its /context: "3.4k/200.0k tokens").
const DefaultWindow = 200000

// Session turns one Auggie session file into events (src log). Auggie
// 0.36.0 rewrites the whole file, {"sessionId", "created", "modified",
// "chatHistory": [...], "agentState": {"modelId"}, "subAgentCostUsd"},
// at the end of every exchange — not when a turn starts, and not for a
// request that failed: those only hooks (and the pane) see. An exchange
// is one request to the model and its reply:
//
//	{"exchange": {"request_message", "response_text", "request_id",
//	  "request_nodes": [text (type 0), tool_result (1), IDE state (4)],
//	  "response_nodes": [text (0), tool_use (5), billing (9), token_usage (10)]},
//	 "completed", "finishedAt"}
//
// A prompt's exchange holds its text; the calls it makes come back as
// tool results in the next exchange, and so on until an exchange makes no
// call: the turn's end. An exchange not completed was interrupted
// (Escape). A refused call's result is an error, "Tool execution denied by
// user: <tool>", and the turn goes on. Each exchange is emitted once, by
// its request_id; its usage is a meter, its billing adds to the
// session's cost.
type Session struct {
	path    string
	session string
	model   string
	cwd     string
	open    bool              // a prompt started a turn not ended yet
	pending map[string]string // call id → tool: started, no result yet
	cost    float64           // the session's own billing so far, in dollars
	costs   bool              // some billing was in dollars
	seen    map[string]*exSeen
	order   []string // request ids, oldest first, for checkpoints
	floor   int      // restored: exchanges before this index were all emitted
}

// exSeen is what was emitted for one exchange.
type exSeen struct {
	Start  bool `json:"s,omitempty"` // turn.start
	Calls  bool `json:"c,omitempty"` // its tool calls' starts
	Result bool `json:"r,omitempty"` // the results it carries
	Meter  bool `json:"m,omitempty"`
	Billed bool `json:"b,omitempty"`
	End    bool `json:"e,omitempty"` // turn.end or interrupt
}

// NewSession starts a parser for the session file at path.
func NewSession(path string) *Session {
	s := &Session{path: path}
	s.Reset()
	return s
}

// Reset forgets everything: the file is a different conversation.
func (s *Session) Reset() {
	*s = Session{path: s.path, pending: map[string]string{}, seen: map[string]*exSeen{}}
}

// doc is a session file as ag reads it; members of a surprising type are
// dropped (lenient).
type doc struct {
	SessionID string `json:"sessionId"`
	Created   string `json:"created"`
	Modified  string `json:"modified"`
	Chat      []item `json:"chatHistory"`
	Agent     struct {
		ModelID string `json:"modelId"`
	} `json:"agentState"`
	SubAgentCost float64 `json:"subAgentCostUsd"`
}

type item struct {
	Exchange struct {
		Message   string `json:"request_message"`
		Response  string `json:"response_text"`
		RequestID string `json:"request_id"`
		Request   []node `json:"request_nodes"`
		Reply     []node `json:"response_nodes"`
	} `json:"exchange"`
	Completed *bool  `json:"completed"`
	Finished  string `json:"finishedAt"`
}

type node struct {
	Type int   `json:"type"`
	TS   int64 `json:"timestamp_ms"`
	Text *struct {
		Content string `json:"content"`
	} `json:"text_node"`
	Result *struct {
		ID       string `json:"tool_use_id"`
		Content  string `json:"content"`
		IsError  bool   `json:"is_error"`
		Duration int64  `json:"duration_ms"`
		Start    int64  `json:"start_time_ms"`
	} `json:"tool_result_node"`
	IDE *struct {
		Folders []struct {
			Root string `json:"folder_root"`
		} `json:"workspace_folders"`
		Terminal *struct {
			Cwd string `json:"current_working_directory"`
		} `json:"current_terminal"`
	} `json:"ide_state_node"`
	Tool *struct {
		ID      string `json:"tool_use_id"`
		Name    string `json:"tool_name"`
		Input   string `json:"input_json"`
		Started int64  `json:"started_at_ms"`
	} `json:"tool_use"`
	Billing *struct {
		Cost string `json:"cost_usd"`
		Unit int    `json:"usage_unit"`
	} `json:"billing_metadata"`
	Usage *struct {
		Input      int64 `json:"input_tokens"`
		Output     int64 `json:"output_tokens"`
		CacheRead  int64 `json:"cache_read_input_tokens"`
		CacheWrite int64 `json:"cache_creation_input_tokens"`
		Window     int64 `json:"max_context_tokens"`
	} `json:"token_usage"`
}

// Node types (Augment's).
const (
	nodeText    = 0
	nodeResult  = 1
	nodeIDE     = 4
	nodeToolUse = 5
	nodeBilling = 9
	nodeUsage   = 10
	unitDollars = 2
)

// Session is the conversation's id (the file's sessionId, else its name).
func (s *Session) Session() string { return s.session }

// Parse takes a line as the whole document (provider.TranscriptParser).
func (s *Session) Parse(line []byte, emit func(*event.Event)) error { return s.ParseWhole(line, emit) }

// ParseWhole reads the whole file as it is now (provider.WholeFileParser)
// and emits what it holds that was not emitted before.
func (s *Session) ParseWhole(data []byte, emit func(*event.Event)) error {
	var d doc
	if err := lenient(json.Unmarshal(data, &d)); err != nil {
		return fmt.Errorf("not an Auggie session: %w", err)
	}
	if s.session == "" {
		s.session = d.SessionID
		if s.session == "" {
			s.session = strings.TrimSuffix(filepath.Base(s.path), ".json")
		}
	}
	if d.Agent.ModelID != "" {
		s.model = d.Agent.ModelID
	}
	fallback := parseTime(d.Modified, parseTime(d.Created, time.Time{}))
	for i := range d.Chat {
		it := &d.Chat[i]
		id := it.Exchange.RequestID
		if id == "" {
			id = "#" + strconv.Itoa(i)
		}
		ms := s.seen[id]
		if ms == nil {
			if i < s.floor {
				continue // emitted before the checkpoint this parser came from
			}
			ms = &exSeen{}
			s.seen[id] = ms
			s.order = append(s.order, id)
		}
		s.exchange(it, id, ms, parseTime(it.Finished, fallback), d.SubAgentCost, emit)
	}
	return nil
}

func (s *Session) exchange(it *item, id string, ms *exSeen, t time.Time, subCost float64, emit func(*event.Event)) {
	ex := &it.Exchange
	if t.IsZero() {
		return // no time to put on anything: wait for the next rewrite
	}
	var texts []string
	for _, n := range ex.Request {
		switch {
		case n.Type == nodeIDE && n.IDE != nil:
			if len(n.IDE.Folders) > 0 && n.IDE.Folders[0].Root != "" {
				s.cwd = n.IDE.Folders[0].Root
			} else if n.IDE.Terminal != nil && n.IDE.Terminal.Cwd != "" {
				s.cwd = n.IDE.Terminal.Cwd
			}
		case n.Type == nodeText && n.Text != nil && strings.TrimSpace(n.Text.Content) != "":
			texts = append(texts, n.Text.Content)
		}
	}
	prompt := strings.Join(texts, "\n")
	if prompt == "" {
		prompt = ex.Message
	}
	start := t
	for _, n := range ex.Reply {
		if n.TS > 0 {
			start = time.UnixMilli(n.TS).UTC()
			break
		}
	}
	if strings.TrimSpace(prompt) != "" && !ms.Start {
		ms.Start = true
		e := s.ev(event.TurnStart, start, id)
		e.Text = event.Clamp(prompt, toolargs.MaxText)
		emit(&e)
		s.open = true
	}
	if !ms.Result {
		ms.Result = true
		for _, n := range ex.Request {
			if n.Type != nodeResult || n.Result == nil {
				continue
			}
			tool, ok := s.pending[n.Result.ID]
			if !ok {
				continue // a call ag never saw start (the file began later)
			}
			delete(s.pending, n.Result.ID)
			end := start
			if n.Result.Start > 0 {
				end = time.UnixMilli(n.Result.Start + n.Result.Duration).UTC()
			}
			e := s.ev(event.ToolEnd, end, n.Result.ID, "end")
			e.Tool, e.ToolID = tool, n.Result.ID
			if n.Result.IsError {
				e.Reason = "error"
				if strings.HasPrefix(n.Result.Content, auggiehook.DenyPrefix) {
					e.Reason = auggiehook.ReasonRefused
				}
			}
			emit(&e)
		}
	}
	calls := false
	var usage *node
	for i := range ex.Reply {
		n := &ex.Reply[i]
		switch {
		case n.Type == nodeToolUse && n.Tool != nil:
			calls = true
			if ms.Calls {
				continue
			}
			at := start
			if n.Tool.Started > 0 {
				at = time.UnixMilli(n.Tool.Started).UTC()
			}
			e := s.ev(event.ToolStart, at, n.Tool.ID)
			e.Tool, e.ToolID = n.Tool.Name, n.Tool.ID
			e.Text = ToolSummary(n.Tool.Name, n.Tool.Input)
			s.pending[n.Tool.ID] = n.Tool.Name
			emit(&e)
		case n.Type == nodeBilling && n.Billing != nil && !ms.Billed:
			if n.Billing.Unit == unitDollars {
				if c, err := strconv.ParseFloat(n.Billing.Cost, 64); err == nil {
					s.cost, s.costs = s.cost+c, true
				}
			}
		case n.Type == nodeUsage && n.Usage != nil:
			usage = n
		}
	}
	ms.Calls, ms.Billed = true, true
	if usage != nil && !ms.Meter {
		ms.Meter = true
		u := usage.Usage
		e := s.ev(event.Meter, t, id)
		e.Model = s.model
		e.Tokens = &event.Tokens{In: u.Input, Out: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
		e.Context = Context(u.Input, u.Window)
		if s.costs || subCost > 0 {
			c := s.cost + subCost
			e.CostUSD = &c
		}
		emit(&e)
	}
	if ms.End {
		return
	}
	switch {
	case it.Completed != nil && !*it.Completed:
		ms.End = true
		if s.open {
			e := s.ev(event.Interrupt, t, id)
			e.Reason = "interrupted"
			emit(&e)
		}
		s.open = false
		clear(s.pending)
	case !calls:
		ms.End = true
		if s.open {
			e := s.ev(event.TurnEnd, t, id)
			e.Text = event.Clamp(ex.Response, toolargs.MaxText)
			emit(&e)
		}
		s.open = false
	}
}

// Context is the context a reply leaves, as Auggie's /context shows it:
// its input tokens against the window (DefaultWindow unless the usage
// names one), the share left to the nearest percent.
func Context(input, window int64) *event.Context {
	if window <= 0 {
		window = DefaultWindow
	}
	left := int(max(0, (window-input)*100+window/2) / window)
	left = min(left, 100)
	return &event.Context{Used: input, Size: window, LeftPct: &left}
}

func (s *Session) ev(kind string, t time.Time, parts ...string) event.Event {
	e := event.New(kind, t, ID, s.session)
	e.Src = event.SrcLog
	e.Cwd = s.cwd
	e.Transcript = s.path
	e.ID = event.MakeID(append([]string{event.SrcLog, ID, s.session, kind}, parts...)...)
	return e
}

func parseTime(v string, fallback time.Time) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC()
	}
	return fallback
}

// lenient drops the errors of a member of a surprising type: the rest of
// the document was read.
func lenient(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

// ToolSummary is what a call is about, as the hooks say it: the session
// file holds the call's input as JSON in a string.
func ToolSummary(tool, input string) string {
	return auggiehook.Dialect().Summary(tool, []byte(input))
}
