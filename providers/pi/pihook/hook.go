// Package pihook maps what ag's extension (contrib/pi/ag.js) hands to
// `ag-hook pi` and `ag-hook omp` — one line per extension event — to ag
// events. omp, a fork of Pi that kept its extension API, adds tool
// approvals and changes its session in place; omphook delegates here. It
// is what ag-hook links of the two providers.
package pihook

import (
	"strconv"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/internal/jsline"
	"github.com/agwatch/ag/providers/internal/toolargs"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Pi's agent id in events.
const ID = "pi"

const textMax = 2000

// Mapper maps Pi's lines (providers/hooks lists it).
type Mapper struct{}

func (Mapper) ID() string { return ID }

// Batches: ag's own plugin hands several lines at once (hooks.Batcher).
func (Mapper) Batches() bool { return true }

// ProcessNames: Pi runs under node and sets process.title to "pi", which
// is its comm.
func (Mapper) ProcessNames() []string { return []string{"pi"} }

// MapHook maps every line (see Map).
func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return Map(ID, raw, hc)
}

// Map maps the extension's lines for agent (pi or omp). A bad line is
// reported (the error names it); the others are still mapped.
func Map(agent string, raw []byte, hc provider.HookContext) ([]event.Event, error) {
	var out []event.Event
	err := jsline.Lines(raw, func(n int, o jsline.Obj) error {
		t := o.Time(hc.Now)
		add := func(e event.Event) {
			hc.Place(&e, o.Str("cwd"))
			if pid := o.PID(); pid != 0 && pid != e.PID {
				e.PID, e.TTY = pid, "" // the agent exited before ag-hook looked
			}
			e.Transcript = o.Str("file")
			e.ID = event.MakeID(event.SrcHook, agent, e.Session, e.Kind, o.Str("type"), o.Str("t"), strconv.Itoa(n), o.Str("toolCallId"))
			out = append(out, e)
		}
		mapLine(agent, o, t, add)
		return nil
	})
	return out, err
}

// questionTools are the tools whose call asks the user and waits: omp's
// ask (verified on 18.2.3: a picker of the options and "Other (type your
// own)"), and Pi's ask_question (later Pi releases, after the seeds; Pi
// 0.73.1 has none).
var questionTools = map[string]bool{"ask": true, "ask_question": true}

// options are the labels the extension sent of a question's choices.
func options(list []any) []string {
	var labels []string
	for _, l := range list {
		if s, ok := l.(string); ok {
			labels = append(labels, s)
		}
	}
	return toolargs.Labels(labels)
}

func mapLine(agent string, o jsline.Obj, t time.Time, add func(event.Event)) {
	session := o.Str("session")
	if session == "" {
		return
	}
	ev := func(kind string) event.Event {
		e := event.New(kind, t, agent, session)
		e.Src = event.SrcHook
		return e
	}
	switch o.Str("type") {
	case "session_start":
		e := ev(event.SessionStart)
		e.Text = o.Str("reason")
		add(e)
	case "agent_start":
		e := ev(event.TurnStart)
		e.Text = event.Clamp(o.Str("text"), textMax)
		add(e)
	case "tool_execution_start":
		e := ev(event.ToolStart)
		e.Tool, e.ToolID, e.Text = o.Str("toolName"), o.Str("toolCallId"), event.Clamp(o.Str("text"), textMax)
		if questionTools[e.Tool] {
			e.Options = options(o.Arr("options"))
		}
		add(e)
		if questionTools[e.Tool] {
			// The call is the question: its picker is up until the call
			// ends (answered: tool_execution_end; Escape: that and an
			// aborted agent_end). No other event says the session waits.
			w := e
			w.Kind, w.Attention = event.Wait, event.AttnQuestion
			add(w)
		}
	case "tool_execution_end":
		e := ev(event.ToolEnd)
		e.Tool, e.ToolID = o.Str("toolName"), o.Str("toolCallId")
		add(e)
	case "agent_end":
		switch o.Str("stopReason") {
		case "error":
			e := ev(event.TurnFail)
			e.Reason = "error"
			e.Text = event.Clamp(o.Str("errorMessage"), textMax)
			add(e)
		case "aborted":
			add(ev(event.Interrupt)) // Escape at work
		default:
			add(ev(event.TurnEnd))
		}
	case "compact_start", "compact_end":
		// The fold ends a manual compaction at the prompt (idle) and
		// keeps the run working through an auto one.
		kind := event.ToolStart
		if o.Str("type") == "compact_end" {
			kind = event.ToolEnd
		}
		e := ev(kind)
		e.Tool, e.Text = event.ToolCompact, o.Str("trigger")
		add(e)
	case "session_shutdown":
		// A reload keeps the session (the extensions are loaded again);
		// quit, /new, /resume and a fork leave it. omp 18.2.3 names no
		// reason when it quits (/exit, or the hang-up of a closed pane).
		if r := o.Str("reason"); r != "reload" {
			e := ev(event.SessionEnd)
			if e.Reason = r; r == "" {
				e.Reason = "exit"
			}
			add(e)
		}
	case "session_switch", "session_branch", "session_fork":
		// omp gives the process another session in place: the one before
		// is over, the new one starts idle.
		if prev := o.Str("previous"); prev != "" && prev != session {
			e := ev(event.SessionEnd)
			e.Session, e.Reason = prev, "now session "+session
			add(e)
		}
		e := ev(event.SessionStart)
		e.Text = o.Str("reason")
		add(e)
	case "tool_approval_requested", "tool_approval_resolved":
		// The dialog on screen is the oldest pending approval's (omp asks
		// them one after another): the wait is for that one while any is
		// pending. omp 18.2.3 starts the call (tool_execution_start, with
		// its command) before it asks.
		if h := o.Obj("head"); h != nil {
			e := ev(event.Wait)
			e.Attention = event.AttnPermission
			e.Tool, e.ToolID, e.Text = h.Str("toolName"), h.Str("toolCallId"), event.Clamp(h.Str("text"), textMax)
			add(e)
			return
		}
		if o.Str("type") == "tool_approval_resolved" {
			e := ev(event.WaitEnd)
			e.Tool, e.ToolID = o.Str("toolName"), o.Str("toolCallId")
			if !o.Bool("approved") {
				e.Reason = "denied"
			}
			add(e)
		}
	}
}
