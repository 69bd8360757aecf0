// Package opencodehook maps what ag's OpenCode plugin (contrib/opencode)
// hands to `ag-hook opencode` — OpenCode's own bus events and three of its
// plugin hooks, one a line — to ag events. It is what ag-hook links of the
// OpenCode provider.
//
// One OpenCode process hosts many sessions; a sub-agent (the task tool)
// is a session of its own with a parentID. The plugin names the parent,
// and a sub-agent's events are its parent's with sub set, so its prompt
// is the parent's wait and its work the parent's in flight.
package opencodehook

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/internal/jsline"
	"github.com/agwatch/ag/providers/internal/toolargs"
	"github.com/agwatch/ag/providers/provider"
)

// ID is OpenCode's agent id in events.
const ID = "opencode"

// textMax clamps free text (prompts, commands, questions).
const textMax = 2000

// Mapper maps the plugin's lines (providers/hooks lists it).
type Mapper struct{}

// ID is the agent's id.
func (Mapper) ID() string { return ID }

// Batches: ag's own plugin hands several lines at once (hooks.Batcher).
func (Mapper) Batches() bool { return true }

// ProcessNames: the native binary (comm "opencode"), which the plugin
// runs in and spawns ag-hook from.
func (Mapper) ProcessNames() []string { return []string{"opencode"} }

// MapHook maps every line of the payload; a bad line is reported (the
// error names it) and the others are still mapped.
func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return Map(ID, raw, hc)
}

// Map maps the plugin's lines for agent: OpenCode, or a fork that kept
// its plugin bus (Kilo), whose events are OpenCode's under its own id.
func Map(agent string, raw []byte, hc provider.HookContext) ([]event.Event, error) {
	var out []event.Event
	err := jsline.Lines(raw, func(n int, o jsline.Obj) error {
		ev := o.Obj("event")
		if ev == nil {
			ev = o // a bare bus event (as OpenCode hands it to a plugin)
		}
		e, ok := mapEvent(agent, ev, o.Str("parent"), o.Time(hc.Now))
		if !ok {
			return nil
		}
		hc.Place(&e, e.Cwd)
		if pid := o.PID(); pid != 0 && pid != e.PID {
			e.PID, e.TTY = pid, "" // OpenCode exited before ag-hook looked
		}
		e.ID = event.MakeID(event.SrcHook, agent, e.Session, e.Sub, e.Kind, o.Str("t"), strconv.Itoa(n), event.MakeIDBytes(jsonKey(ev)))
		out = append(out, e)
		return nil
	})
	return out, err
}

// jsonKey is what tells two lines apart for the id: the event's type and
// the ids it carries.
func jsonKey(ev jsline.Obj) []byte {
	p := ev.Obj("properties")
	return []byte(ev.Str("type") + "\x00" + p.Str("sessionID") + "\x00" + p.Str("id") + "\x00" +
		p.Str("requestID") + "\x00" + p.Str("callID") + "\x00" + p.Str("messageID") + "\x00" + p.Obj("status").Str("type"))
}

// mapEvent is one line's event; ok is false for what ag does not fold.
func mapEvent(agent string, ev jsline.Obj, parent string, t time.Time) (e event.Event, ok bool) {
	p := ev.Obj("properties")
	if p == nil {
		return e, false
	}
	session := p.Str("sessionID")
	info := p.Obj("info")
	if session == "" && info != nil {
		session = info.Str("id")
	}
	if session == "" {
		return e, false
	}
	var kind string
	switch typ := ev.Str("type"); typ {
	case "session.created":
		kind = event.SessionStart
	case "session.deleted":
		kind = event.SessionEnd
	case "chat.message":
		kind = event.TurnStart
	case "session.status":
		switch p.Obj("status").Str("type") {
		case "busy", "retry":
			kind = event.TurnStart
		case "idle":
			kind = event.TurnEnd
		default:
			return e, false
		}
	case "session.idle":
		kind = event.TurnEnd
	case "session.error":
		kind = event.TurnFail
		if name := p.Obj("error").Str("name"); name == "MessageAbortedError" {
			kind = event.Interrupt // Escape at work: no error of the model's
		}
	case "permission.asked", "question.asked":
		kind = event.Wait
	case "permission.replied", "question.replied", "question.rejected":
		kind = event.WaitEnd
	case "tool.execute.before":
		kind = event.ToolStart
	case "tool.execute.after":
		kind = event.ToolEnd
	default:
		return e, false
	}
	e = event.New(kind, t, agent, session)
	e.Src = event.SrcHook
	if parent != "" && parent != session {
		e.Session, e.Sub = parent, session
	}
	switch ev.Str("type") {
	case "session.created":
		e.Cwd = info.Str("directory")
	case "chat.message":
		e.Run = p.Str("messageID")
		e.Text = event.Clamp(p.Str("text"), textMax)
		if m := p.Obj("model"); m != nil && m.Str("modelID") != "" {
			e.Model = strings.TrimPrefix(m.Str("providerID")+"/"+m.Str("modelID"), "/")
		}
	case "session.error":
		er := p.Obj("error")
		e.Reason = er.Str("name")
		e.Text = event.Clamp(firstOf(er.Obj("data").Str("message"), er.Str("message")), textMax)
	case "permission.asked":
		e.Attention = event.AttnPermission
		e.Tool = p.Str("permission")
		e.ToolID = p.Obj("tool").Str("callID")
		md := p.Obj("metadata")
		var pattern string
		if pats := p.Arr("patterns"); len(pats) > 0 {
			pattern, _ = pats[0].(string)
		}
		e.Text = event.Clamp(firstOf(md.Str("command"), md.Str("filepath"), md.Str("filePath"), md.Str("path"), md.Str("url"), pattern, md.Str("description")), textMax)
	case "question.asked":
		e.Attention = event.AttnQuestion
		e.Tool = "question"
		e.ToolID = p.Obj("tool").Str("callID")
		qs := p.Arr("questions")
		if len(qs) > 0 {
			q, _ := qs[0].(map[string]any)
			e.Text = firstOf(jsline.Obj(q).Str("question"), jsline.Obj(q).Str("header"))
			if len(qs) > 1 {
				e.Text += " (+" + strconv.Itoa(len(qs)-1) + " more)"
			}
			e.Text = event.Clamp(e.Text, textMax)
		}
		// One question's choices, read as every question tool's are.
		if raw, err := json.Marshal(qs); err == nil {
			e.Options = toolargs.QuestionOptions(raw)
		}
	case "permission.replied":
		if p.Str("reply") == "reject" {
			e.Reason = "denied"
		}
	case "question.rejected":
		e.Reason = "dismissed"
	case "tool.execute.before", "tool.execute.after":
		e.Tool = p.Str("tool")
		e.ToolID = p.Str("callID")
		if a := p.Obj("args"); a != nil && kind == event.ToolStart {
			e.Text = event.Clamp(firstOf(a.Str("command"), a.Str("filePath"), a.Str("path"), a.Str("pattern"), a.Str("url"), a.Str("description")), textMax)
		}
	}
	return e, true
}

func firstOf(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}
