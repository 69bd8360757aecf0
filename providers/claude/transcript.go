package claude

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/claude/claudehook"
	"github.com/agwatch/ag/providers/provider"
)

// Claude Code writes one transcript per session,
// <config>/projects/<cwd with / and . as ->/<session id>.jsonl, and since
// 2.x one per sub-agent beside it, <session id>/subagents/agent-<id>.jsonl.
var transcriptGlobs = []string{"*/*.jsonl", "*/*/subagents/agent-*.jsonl"}

// TranscriptRoots are the projects folders of every Claude config dir:
// each of $CLAUDE_CONFIG_DIR (comma-separated, as ccusage reads it), then
// ~/.claude and ~/.config/claude.
func (*Provider) TranscriptRoots(env provider.Env) []provider.Root {
	var dirs []string
	for _, d := range strings.Split(env("CLAUDE_CONFIG_DIR"), ",") {
		if d = strings.TrimSpace(d); d != "" {
			dirs = append(dirs, d)
		}
	}
	if home := env("HOME"); home != "" {
		dirs = append(dirs, filepath.Join(home, ".claude"), filepath.Join(home, ".config", "claude"))
	}
	var roots []provider.Root
	seen := map[string]bool{}
	for _, d := range dirs {
		p := filepath.Join(filepath.Clean(d), "projects")
		if !seen[p] {
			seen[p] = true
			roots = append(roots, provider.Root{Dir: p, Globs: transcriptGlobs})
		}
	}
	return roots
}

// NewTranscriptParser returns the parser for one transcript file.
func (*Provider) NewTranscriptParser(path string) provider.TranscriptParser {
	return NewParser(path)
}

// Parser turns the lines of one Claude transcript into events.
//
// The session is the file's: the stem of <session>.jsonl, or the folder
// above subagents/ for a sub-agent file (how ccusage groups them, and the
// id hooks report). Only when that name is not a session id (a file
// elsewhere) does the lines' sessionId stand in.
type Parser struct {
	path    string
	session string // from the path; "" until a line names it
	fixed   bool   // session came from the path
	sub     string // sub-agent id of a subagents/agent-<id>.jsonl file

	decode func([]byte, *record, *lineMemo) (bool, error) // skimLine; the tests swap in a plain decoder
	memo   lineMemo

	rec    record
	ev     event.Event
	cwd    string
	branch string
	lastT  time.Time
	prompt string            // promptId of the current real prompt
	tools  map[string]string // open tool_use id → tool name
	bg     map[string]bool   // sub-agents running in the background
	recent []msgKey          // the newest responses, oldest first (see seenKept)
	model  string            // the last model named: most lines name the same
	ended  string            // message id the last turn.end was for
	names  map[string]string // tool names, each made once

	// The id of an event hashes its session first: hashed once (a cache).
	idSession string
	idSet     bool
	idPrefix  event.IDPrefix

	// What the events of a line point to: each is encoded before the next.
	tok event.Tokens
	ctx claudehook.Ctx
}

type msgKey struct{ id, req string }

// NewParser returns a parser for the transcript at path.
func NewParser(path string) *Parser {
	p := &Parser{path: path, decode: skimLine}
	dir, base := filepath.Split(filepath.Clean(path))
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	p.session = stem
	if filepath.Base(dir) == "subagents" {
		p.session = filepath.Base(filepath.Dir(filepath.Dir(dir)))
		p.sub = strings.TrimPrefix(stem, "agent-")
	}
	p.fixed = provider.IsUUID(p.session)
	if !p.fixed {
		p.session = ""
	}
	p.Reset()
	return p
}

// Reset forgets what was read: the file starts over.
func (p *Parser) Reset() {
	if !p.fixed {
		p.session = ""
	}
	p.cwd, p.branch, p.prompt, p.ended = "", "", "", ""
	p.lastT = time.Time{}
	p.tools = map[string]string{}
	p.bg = map[string]bool{}
	p.recent = p.recent[:0]
	p.model = ""
	p.names = map[string]string{}
}

// Parse handles one line (see provider.TranscriptParser).
func (p *Parser) Parse(line []byte, emit func(*event.Event)) error {
	ok, err := p.decode(line, &p.rec, &p.memo)
	if err != nil || !ok {
		return err
	}
	p.handle(&p.rec, emit)
	return nil
}

// handle derives the events of one record. State changes only on lines
// that yield events.
func (p *Parser) handle(r *record, emit func(*event.Event)) {
	m := &r.Msg
	isUser, isAssistant := r.Type.is("user"), r.Type.is("assistant")
	isDuration := r.Type.is("system") && r.Subtype.is("turn_duration")
	if !m.HasUsage && !isUser && !isAssistant && !isDuration {
		return
	}
	var t time.Time
	if !r.Timestamp.empty() {
		if ts, err := event.ParseTime(r.Timestamp.text()); err == nil {
			t = ts.UTC()
		}
	}
	if t.IsZero() {
		t = p.lastT
	}
	if t.IsZero() {
		return // no time to place an event at
	}
	sub := p.sub
	if sub == "" && r.Sidechain {
		sub = r.AgentID.String()
		if sub == "" {
			sub = "sidechain"
		}
	}
	main := sub == ""
	session := p.session
	if session == "" {
		session = r.SessionID.String()
	}
	if session == "" {
		session = strings.TrimSuffix(filepath.Base(p.path), filepath.Ext(p.path))
	}
	cwd, branch := p.cwd, p.branch
	if !r.Cwd.empty() {
		cwd = r.Cwd.or(p.cwd)
	}
	if !r.Branch.empty() {
		branch = r.Branch.or(p.branch)
	}
	first := true
	// out emits e; unless fixed, its id is made from the session, the kind
	// and what e.ID holds (what makes it unique within the session).
	out := func(e *event.Event, fixed bool) {
		if first {
			// First event of this line: commit what it tells about the file.
			first = false
			p.lastT, p.cwd, p.branch = t, cwd, branch
			if p.session == "" {
				p.session = r.SessionID.String()
			}
		}
		e.Session, e.Cwd, e.Branch = session, cwd, branch
		if !fixed {
			if session != p.idSession || !p.idSet {
				p.idSession, p.idSet, p.idPrefix = session, true, event.NewIDPrefix(event.SrcLog, session)
			}
			e.ID = p.idPrefix.Make(e.Kind, e.ID)
		}
		emit(e)
	}
	newEv := func(kind string) *event.Event {
		p.ev = event.New(kind, t, ID, "")
		p.ev.Src, p.ev.Transcript, p.ev.Sub = event.SrcLog, p.path, sub
		return &p.ev
	}
	msgID := m.ID.or(p.lastMsg())

	if m.HasUsage && (msgID == "" || !p.seen(msgID, r.RequestID)) {
		key := msgKey{msgID, r.RequestID.String()}
		if msgID != "" {
			p.remember(key)
		}
		e := newEv(event.Meter)
		p.tok = m.Usage
		e.Tokens = &p.tok
		p.model = m.Model.or(p.model)
		if model := p.model; model != "<synthetic>" {
			e.Model = model
			if main {
				claudehook.FillContext(&p.ctx, model, p.tok)
				e.Context = &p.ctx.Context
			}
		}
		// The meter id is the response's, wherever it is read, so the
		// same response copied into another file counts once.
		if msgID != "" {
			e.ID = event.MakeID(event.SrcLog, msgID, key.req)
		} else {
			e.ID = event.MakeID(event.SrcLog, session, "line", r.UUID.String(), r.Timestamp.String())
		}
		out(e, true)
	}

	switch {
	case isAssistant:
		for i := range m.Blocks {
			b := &m.Blocks[i]
			if !b.Type.is("tool_use") || b.ID.empty() {
				continue
			}
			id, name := b.ID.String(), p.name(b.Name)
			p.tools[id] = name
			e := newEv(event.ToolStart)
			e.Tool, e.ToolID, e.Text, e.Run, e.ID = name, id, b.Summary, p.prompt, id
			out(e, false)
		}
		isStop := m.StopReason.is("end_turn") || m.StopReason.is("stop_sequence")
		if main && r.APIError && (msgID == "" || msgID != p.ended) {
			// The request failed for good and the turn with it (the
			// StopFailure hook says the same): what the user was shown
			// is the text, "API Error: 529 Overloaded…".
			p.ended = msgID
			e := newEv(event.TurnFail)
			e.Reason, e.Run, e.ID = r.ErrorKind.String(), p.prompt, "fail/"+msgID
			if e.Reason == "" {
				e.Reason = "api_error"
			}
			e.Text = clampLog(messageText(m))
			if msgID == "" {
				e.ID = "fail/line/" + r.UUID.String()
			}
			out(e, false)
			break
		}
		// Claude Code's own <synthetic> messages ("No response requested.")
		// answer nothing the user asked: not a turn's end.
		if main && !m.Model.is("<synthetic>") && isStop && (msgID == "" || msgID != p.ended) {
			p.ended = msgID
			e := newEv(event.TurnEnd)
			e.Reason, e.Run, e.ID, e.Pending = m.StopReason.String(), p.prompt, msgID, len(p.bg)
			if msgID == "" {
				e.ID = "line/" + r.UUID.String()
			}
			out(e, false)
		}
	case isUser:
		results := false
		for i := range m.Blocks {
			b := &m.Blocks[i]
			if !b.Type.is("tool_result") || b.ToolUseID.empty() {
				continue
			}
			results = true
			id := b.ToolUseID.String()
			e := newEv(event.ToolEnd)
			e.Tool, e.ToolID, e.Run, e.ID = p.tools[id], id, p.prompt, id
			delete(p.tools, id)
			switch {
			case b.Rejected:
				e.Reason = "denied"
			case b.IsError:
				e.Reason = "error"
			}
			out(e, false)
		}
		if main && !r.Launched.empty() && len(p.bg) < 1024 {
			p.bg[r.Launched.String()] = true
		}
		if results {
			break
		}
		text := messageText(m)
		promptID := r.PromptID.String()
		switch {
		case main && modelSet(text) != "":
			// The window from now on: a meter that declares it (a size,
			// nothing used or counted), for the model the next response
			// names.
			name := modelSet(text)
			e := newEv(event.Meter)
			e.Context = &event.Context{Size: claudehook.ContextWindow(name, 0)}
			e.Text, e.ID = name, "model/"+r.UUID.String()
			out(e, false)
		case strings.HasPrefix(strings.TrimSpace(text), interruptMark):
			e := newEv(event.Interrupt)
			run := promptID
			if run == "" {
				run = p.prompt
			}
			mark := r.InterruptedMessageID.String()
			if mark == "" {
				mark = r.UUID.String()
			}
			e.Run, e.Text, e.ID = run, clampLog(text), run+"/"+mark
			out(e, false)
		case main && taskNoteID(text) != "":
			// A background agent is done and the session resumes under
			// a new prompt id: no prompt of the user's, but a new run.
			delete(p.bg, taskNoteID(text))
			if promptID != "" && promptID != p.prompt {
				p.prompt, p.ended = promptID, ""
			}
		case main && !r.Meta && !r.CompactSummary && strings.TrimSpace(text) != "" && !isInjected(text):
			e := newEv(event.TurnStart)
			e.Run, e.Text, e.ID = promptID, clampLog(text), promptID
			if promptID == "" {
				e.ID = "line/" + r.UUID.String()
			}
			out(e, false)
			p.prompt = promptID
			p.ended = ""
		}
	case isDuration && main:
		e := newEv(event.TurnEnd)
		e.Reason, e.Run, e.ID, e.Pending = "turn_duration", p.prompt, "duration/"+r.UUID.String(), len(p.bg)
		out(e, false)
	}
}

// name is a tool's name, the same string for every call of the tool.
func (p *Parser) name(j jstr) string {
	if n, ok := p.names[string(j.raw)]; ok && j.raw != nil {
		return n
	}
	n := j.String()
	if len(p.names) < 256 && j.raw != nil {
		p.names[string(j.raw)] = n
	}
	return n
}

// messageText is a message's text: the string, or its text blocks joined.
func messageText(m *message) string {
	if m.IsString {
		return m.Text.String()
	}
	var parts []string
	for i := range m.Blocks {
		if m.Blocks[i].Type.is("text") {
			parts = append(parts, m.Blocks[i].Text.String())
		}
	}
	return strings.Join(parts, "\n")
}
