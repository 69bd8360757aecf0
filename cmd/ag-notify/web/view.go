package web

import (
	"path/filepath"
	"strconv"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/safetext"
	"github.com/agwatch/ag/providers/provider"
)

// View is one session as the page shows it. Every text in it went through
// notify's cleaning (no control characters, no bidi overrides), and the
// page puts it in the document as text, never as markup.
type View struct {
	ID        string       `json:"id"`
	Agent     string       `json:"agent"`
	Name      string       `json:"name"`
	Host      string       `json:"host,omitempty"`
	Project   string       `json:"project"`
	Branch    string       `json:"branch,omitempty"`
	Status    string       `json:"status"`
	Attention string       `json:"attention,omitempty"`
	Subtitle  string       `json:"subtitle"`
	Text      string       `json:"text,omitempty"`
	Since     string       `json:"since,omitempty"`
	Token     string       `json:"token,omitempty"`
	Model     string       `json:"model,omitempty"`
	Context   int          `json:"context_pct,omitempty"` // share of the window used
	Tokens    int64        `json:"tokens,omitempty"`
	Cost      float64      `json:"cost,omitempty"`
	Limit     string       `json:"limit,omitempty"` // the fullest rate-limit window, "5h 42%"
	Buttons   []ViewButton `json:"buttons,omitempty"`
	Reply     string       `json:"reply,omitempty"` // the action a typed reply becomes
	Stale     string       `json:"stale,omitempty"`
	// Background: a session with no pane (Claude's --bg): Open, no keys.
	Background bool   `json:"background,omitempty"`
	Pressed    string `json:"pressed,omitempty"` // what this page sent on this token
}

// ViewButton is one button: ID names it in a press.
type ViewButton struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// session is what the server keeps of one: the state, the note that
// says what it offers, and whether its current offer was answered.
type session struct {
	st      event.Event
	note    *notify.Note
	view    View
	pressed string // the button or reply this server sent on st.Token
	stale   string
}

// WaitLines, WaitChars bound what the page shows of a wait (a plan's
// first lines): more than a banner, less than a screen.
const (
	waitLines, waitChars = 12, 1500
	openID               = "open"
	replyID              = "reply"
)

func sessionID(host, agent, sess string) string { return event.MakeID("web", host, agent, sess) }

// id is a session's id on the page, its host as this machine names it.
func (s *Server) id(host, agent, sess string) string {
	return sessionID(s.cfg.Self.Canon(host), agent, sess)
}

// state takes a state event.
func (s *Server) state(e *event.Event) {
	id := s.id(e.Host, e.Agent, e.Session)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Status == event.StatusGone || e.Session == "" {
		if _, ok := s.sessions[id]; ok {
			delete(s.sessions, id)
			s.broadcast("del", map[string]string{"id": id})
		}
		return
	}
	ss := s.sessions[id]
	if ss == nil {
		ss = &session{}
		s.sessions[id] = ss
	}
	if ss.st.Token != e.Token {
		ss.pressed = ""
	}
	ss.st, ss.stale = *e, e.Stale
	ss.st.Extra = append([]byte(nil), e.Extra...)
	s.build(id, ss)
	s.broadcast("put", ss.view)
}

// hostDown marks a host's sessions stale: what they offered may no longer
// hold, so they offer nothing until the host speaks again.
func (s *Server) hostDown(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, ss := range s.sessions {
		if host != "" && s.cfg.Self.Canon(ss.st.Host) == s.cfg.Self.Canon(host) && !s.cfg.Self.Is(host) {
			ss.stale = "lost touch with " + host
			s.build(id, ss)
			s.broadcast("put", ss.view)
		}
	}
}

// keys passes ag-keys' verdict on a press to the page that shows it.
func (s *Server) keys(e *event.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, ss := range s.sessions {
		if ss.st.Agent == e.Agent && ss.st.Session == e.Session && (e.Token == "" || ss.st.Token == e.Token || ss.pressed != "") {
			s.broadcast("keys", map[string]string{"id": id, "token": e.Token, "action": e.Action,
				"status": e.Status, "reason": safetext.Line(e.Reason, 300), "typed": safetext.Line(e.Text, 120)})
			return
		}
	}
}

// build works out the session's note and view (with s.mu held).
func (s *Server) build(id string, ss *session) {
	e := &ss.st
	kind := notify.KindWaiting
	switch e.Status {
	case event.StatusDone, event.StatusIdle:
		kind = notify.KindDone
	case event.StatusFailed:
		kind = notify.KindFailed
	}
	n := s.cfg.Agents.Build(kind, e)
	project := filepath.Base(filepath.Clean(e.Cwd))
	if e.Cwd == "" || project == "/" || project == "." {
		project = e.Session
		if len(project) > 8 {
			project = project[:8]
		}
	}
	host := e.Host
	if s.cfg.Self.Is(host) {
		host = ""
	}
	v := View{ID: id, Agent: e.Agent, Name: n.Name, Host: host, Project: notify.Line(project, 80),
		Branch: notify.Line(e.Branch, 80), Status: e.Status, Attention: e.Attention, Token: e.Token,
		Model: notify.Line(e.Model, 60), Stale: ss.stale, Background: background(e)}
	switch e.Status {
	case event.StatusWaiting:
		v.Subtitle, v.Text = n.Subtitle, notify.Clamp(e.Text, waitLines, waitChars)
	case event.StatusWorking:
		v.Subtitle = "Working"
		if e.Tool != "" {
			v.Subtitle += ": " + notify.Line(e.Tool, 60)
		}
		v.Text = notify.Clamp(e.Text, 2, 300)
	case event.StatusDone, event.StatusIdle:
		v.Subtitle = map[string]string{event.StatusDone: "Finished", event.StatusIdle: "Idle"}[e.Status]
		v.Text = notify.Clamp(e.Prompt, 2, 300)
	default:
		v.Subtitle, v.Text = n.Subtitle, n.Body
	}
	if e.Since != nil {
		v.Since = e.Since.UTC().Format(time.RFC3339Nano)
	}
	if c := e.Context; c != nil && c.Size > 0 {
		v.Context = int(c.Used * 100 / c.Size)
	}
	if t := e.Tokens; t != nil {
		v.Tokens = t.Total()
	}
	if e.CostUSD != nil {
		v.Cost = *e.CostUSD
	}
	if l, ok := fullest(e.Limits); ok {
		v.Limit = notify.Line(l.Window, 12) + " " + strconv.Itoa(int(l.UsedPct+0.5)) + "%"
	}
	offer := ss.stale == "" && e.Status != event.StatusWorking && e.Status != event.StatusFailed
	switch {
	case !offer:
		n.Buttons, n.Reply = nil, ""
	case v.Background:
		// No pane to type into: open it (a tmux window attached to it),
		// answer it there.
		n.Buttons, n.Reply = []notify.Button{{Key: provider.ActOpen, Label: "Open"}}, ""
	}
	for i, b := range n.Buttons {
		v.Buttons = append(v.Buttons, ViewButton{ID: b.ID(i), Label: b.Label})
	}
	v.Reply = n.Reply
	v.Pressed = ss.pressed
	v.safe()
	ss.note, ss.view = n, v
}

// safe puts every text the page shows through safetext, ag's one
// sanitizer for text that leaves it (on top of notify's cleaning).
func (v *View) safe() {
	for _, p := range []*string{&v.Name, &v.Host, &v.Project, &v.Branch, &v.Subtitle, &v.Model, &v.Limit, &v.Stale, &v.Pressed} {
		*p = safetext.Line(*p, 200)
	}
	v.Text = safetext.Text(v.Text, waitChars)
	for i := range v.Buttons {
		v.Buttons[i].Label = safetext.Line(v.Buttons[i].Label, notify.ButtonChars)
	}
}

// fullest is the rate-limit window nearest its end.
func fullest(ls []event.Limit) (event.Limit, bool) {
	var best event.Limit
	for i, l := range ls {
		if i == 0 || l.UsedPct > best.UsedPct {
			best = l
		}
	}
	return best, len(ls) > 0
}

// background reports whether the state is a background session, one with
// no terminal of its own (Claude's --bg).
func background(e *event.Event) bool { return e.Where == event.WhereBackground }

// snapshot is every session, for a page that just connected.
func (s *Server) snapshot() []View {
	out := make([]View, 0, len(s.sessions))
	for _, ss := range s.sessions {
		out = append(out, ss.view)
	}
	return out
}
