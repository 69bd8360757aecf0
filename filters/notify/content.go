package notify

import (
	"path/filepath"
	"strconv"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// Kinds of notification; the cooldown is kept per session and kind.
const (
	KindWaiting = "waiting"
	KindDone    = "done"
	KindFailed  = "failed"
	// KindStale replaces a note whose host is out of reach: what it
	// offered may no longer hold.
	KindStale = "stale"
)

// Button is one action a notification offers: Key is the protocol action
// (provider.ActApprove, ...), Label what the user reads, Text what the
// action carries (a question's option: its label, which ag-keys picks).
type Button struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	Text  string `json:"text,omitempty"`
}

// ID names the button among a note's: its action, or for an option
// "option-N" (N from 1), since every option is the same action.
func (b Button) ID(i int) string {
	if b.Text == "" {
		return b.Key
	}
	return "option-" + strconv.Itoa(i+1)
}

// Find is the button whose ID is id.
func (n *Note) Find(id string) (Button, bool) {
	for i, b := range n.Buttons {
		if b.ID(i) == id {
			return b, true
		}
	}
	return Button{}, false
}

// Options are the buttons that answer a question with one of its
// options.
func (n *Note) Options() []Button {
	var out []Button
	for _, b := range n.Buttons {
		if b.Text != "" {
			out = append(out, b)
		}
	}
	return out
}

// Note is one notification, whatever backend shows it. It carries the
// state's token at offer time: a press quotes it, and ag-keys refuses the
// press if the session has moved on since.
type Note struct {
	Key     string `json:"-"` // host + agent + session: one notification per session
	Kind    string `json:"kind"`
	Agent   string `json:"agent"`
	Name    string `json:"name"` // the agent, for people: "Claude Code"
	Session string `json:"session"`
	Host    string `json:"host,omitempty"`
	// Remote: the session runs on another host (its pane is not here).
	Remote bool   `json:"remote,omitempty"`
	Pane   string `json:"pane,omitempty"`
	TTY    string `json:"tty,omitempty"`
	// Where and Job: a background session (no pane; Open attaches a
	// window to it: action open, see doc/protocol-claude-background.md).
	Where     string   `json:"where,omitempty"`
	Job       string   `json:"job,omitempty"`
	Cwd       string   `json:"cwd,omitempty"`
	Branch    string   `json:"branch,omitempty"`
	Attention string   `json:"attention,omitempty"`
	Tool      string   `json:"tool,omitempty"`
	Token     string   `json:"token,omitempty"`
	Title     string   `json:"title"`
	Subtitle  string   `json:"subtitle"`       // what happened: "Needs permission: Bash"
	Body      string   `json:"body,omitempty"` // what is pending, clamped
	Buttons   []Button `json:"buttons,omitempty"`
	// Reply is the action a typed reply becomes ("reply" or "answer"),
	// empty when the agent cannot take one safely here.
	Reply string `json:"reply,omitempty"`
	// Urgent notes (waits) should stay on screen until dealt with.
	Urgent bool `json:"urgent,omitempty"`

	edge string // the state edge it was made for (token, or status fields)
}

// Text is the note as one line for backends with no separate title.
func (n *Note) Text() string {
	s := n.Title + " — " + n.Subtitle
	if b := Line(n.Body, 0); b != "" {
		s += ": " + b
	}
	return s
}

// Agents tells the policy about agents: the name people read and the keys
// that answer them. Nil functions mean "unknown": the id, and no buttons.
type Agents struct {
	Name func(agent string) string
	Keys func(agent string) (provider.KeyMap, bool)
}

// Build makes the note for a state event about to be notified as kind.
func (a Agents) Build(kind string, e *event.Event) *Note {
	// What names the session (agent, session, host, pane, tty, token)
	// stays exact: a press must find it again. What only describes it is
	// made safe to show here; each backend makes the rest safe where it
	// shows it.
	n := &Note{
		Key: key(e), Kind: kind, Agent: e.Agent, Session: e.Session, Host: e.Host, Pane: e.Pane, TTY: e.TTY,
		Where: e.Where, Job: Line(e.Job, 0),
		Cwd: Line(e.Cwd, 0), Branch: Line(e.Branch, 0), Attention: e.Attention, Tool: Line(e.Tool, 0), Token: e.Token,
		edge: edge(e),
	}
	n.Name = Line(a.name(e.Agent), TitleChars)
	n.Title = a.title(n.Name, e)
	switch kind {
	case KindWaiting:
		n.Urgent = true
		switch e.Attention {
		case event.AttnQuestion:
			n.Subtitle = "Has a question"
		case event.AttnPlan:
			n.Subtitle = "Plan ready for review"
		default:
			n.Subtitle = "Needs permission"
			switch e.Reason {
			case event.ReasonEstimated:
				n.Subtitle = "May need permission" // no hook said so: a call has run long
			case event.ReasonUnchecked:
				n.Subtitle = "Auto mode can't check" // its hold: the call's own prompt comes next
			}
			if e.Tool != "" {
				n.Subtitle += ": " + Line(e.Tool, 60)
			}
		}
		n.Body = Clamp(e.Text, WaitLines, WaitChars)
	case KindDone:
		n.Subtitle = "Finished"
		n.Body = Clamp(e.Prompt, DoneLines, DoneChars)
	case KindFailed:
		n.Subtitle = "Failed"
		if r := Line(e.Text, 80); r != "" {
			n.Subtitle += ": " + r
		} else if r := Line(e.Reason, 80); r != "" {
			n.Subtitle += ": " + r
		}
		n.Body = Clamp(e.Prompt, DoneLines, DoneChars)
	}
	// Several sessions of one process waiting behind one pane: a key
	// would answer whichever dialog it shows. An estimated wait may be
	// none: keys typed into a pane with no prompt would land in the
	// composer; its buttons come when the pane confirms the prompt (a new
	// state edge, a new note). Both informational only.
	if !e.Ambiguous && !(e.Status == event.StatusWaiting && e.Reason == event.ReasonEstimated) {
		a.actions(n, e)
	}
	return n
}

func (a Agents) name(agent string) string {
	if a.Name != nil {
		if s := a.Name(agent); s != "" {
			return s
		}
	}
	return agent
}

// title is "<Agent> · <project>:<branch>".
func (a Agents) title(name string, e *event.Event) string {
	project := ""
	if e.Cwd != "" {
		project = filepath.Base(filepath.Clean(e.Cwd))
	}
	if project == "" || project == "." || project == string(filepath.Separator) {
		project = e.Session
		if len(project) > 8 {
			project = project[:8]
		}
	}
	where := project
	if e.Branch != "" {
		where += ":" + e.Branch
	}
	return Line(name+" · "+where, TitleChars)
}

// actions fills the buttons and reply the agent's key map supports for
// this wait. Approve and Deny come as a pair or not at all: a lone Approve
// would leave the user no way to refuse from the banner.
func (a Agents) actions(n *Note, e *event.Event) {
	if a.Keys == nil {
		return
	}
	km, ok := a.Keys(e.Agent)
	if !ok {
		return
	}
	pair := func(ak, yesLabel, ak2, noLabel string, yes, no []string) {
		if len(yes) > 0 && len(no) > 0 {
			n.Buttons = []Button{{Key: ak, Label: yesLabel}, {Key: ak2, Label: noLabel}}
		}
	}
	switch n.Kind {
	case KindWaiting:
		switch e.Attention {
		case event.AttnPlan:
			yes := km.PlanApprove
			if len(yes) == 0 && km.PaneChosen() {
				yes = []string{"(read from the pane when pressed)"}
			}
			pair(provider.ActPlanApprove, "Approve plan", provider.ActPlanDeny, "Keep planning", yes, km.PlanDeny)
			if km.PlanPrelude != nil {
				n.Reply = provider.ActReply
			}
		case event.AttnQuestion:
			if km.AnswerPrelude != nil || len(km.Fields) > 0 {
				n.Reply = provider.ActAnswer
			}
			// An answer that is an option's label picks that option (a map
			// that types only options offers no reply beside them).
			if n.Reply != "" || km.AnswerRow == provider.OptionsByDigit {
				for _, o := range e.Options {
					if l := Line(o, ButtonChars); l != "" {
						n.Buttons = append(n.Buttons, Button{Key: provider.ActAnswer, Label: l, Text: o})
					}
				}
			}
		default:
			yes, no := "Approve", "Deny"
			if e.Reason == event.ReasonUnchecked {
				// Auto mode's hold in Claude's own words: its Enter runs
				// nothing, it brings the call's prompt (a wait of its own).
				yes, no = "Stay in auto mode", "Cancel"
			}
			pair(provider.ActApprove, yes, provider.ActDeny, no, km.Approve, km.Deny)
			if km.PermissionPrelude != nil {
				n.Reply = provider.ActReply
			}
		}
	case KindDone:
		if km.FinishedPrelude != nil {
			n.Reply = provider.ActReply
		}
	}
}

// key is one notification slot per session, hosts apart.
func key(e *event.Event) string { return e.Host + "\x00" + e.Agent + "\x00" + e.Session }

// Stale is n's replacement while its host is out of reach: the same
// title, what it was about, no buttons.
func (n *Note) Stale() *Note {
	s := *n
	s.Kind, s.Buttons, s.Reply, s.Urgent = KindStale, nil, "", false
	where := "its host"
	if n.Host != "" {
		where = n.Host
	}
	s.Subtitle = Line("Lost touch with "+where+" — was: "+n.Subtitle, 120)
	s.edge = "stale|" + n.edge
	return &s
}

// edge identifies the state edge a notification belongs to: the token when
// ag-fold gave one, else the fields that make one.
func edge(e *event.Event) string {
	if e.Token != "" {
		return e.Token
	}
	since := ""
	if e.Since != nil {
		since = e.Since.String()
	}
	return e.Status + "|" + e.Attention + "|" + e.Tool + "|" + since
}
