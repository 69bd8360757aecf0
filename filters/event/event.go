// Package event is ag's event protocol v1: one JSON object per line that every
// ag program reads and writes. See doc/protocol.md.
//
// Unknown members are kept in Extra and written back out unchanged, so a stage
// never drops what a later stage (or a newer ag) put there.
package event

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/bits"
	"time"
)

// Version is the protocol version written in every event's "v".
const Version = 1

// Kinds of events. Observation kinds come from ag-hook, ag-tail and ag-detect;
// derived kinds from ag-fold, ag-notify and ag-keys.
const (
	SessionStart = "session.start"
	SessionEnd   = "session.end"
	TurnStart    = "turn.start"
	ToolStart    = "tool.start"
	ToolEnd      = "tool.end"
	Wait         = "wait"
	WaitEnd      = "wait.end"
	TurnEnd      = "turn.end"
	TurnFail     = "turn.fail"
	Interrupt    = "interrupt"
	Meter        = "meter"
	ProcUp       = "proc.up"
	ProcDown     = "proc.down"

	State  = "state"
	Notify = "notify"
	Action = "action"
	Keys   = "keys"

	// Mark is a point in ag-tail's output that its cursor can resume
	// from: ag-fold ties its state file to the last one it folded.
	Mark = "mark"

	// HostDown says the link to a host's stream is down (ssh exited, the
	// broker lost the host's publisher): its states are stale until it
	// speaks again.
	HostDown = "host.down"
)

// Kinds lists every kind this version knows, in documentation order.
var Kinds = []string{SessionStart, SessionEnd, TurnStart, ToolStart, ToolEnd, Wait, WaitEnd,
	TurnEnd, TurnFail, Interrupt, Meter, ProcUp, ProcDown, State, Notify, Action, Keys, Mark, HostDown}

// Sources: who observed an event.
const (
	SrcHook       = "hook"
	SrcLog        = "log"
	SrcPane       = "pane"
	SrcProc       = "proc"
	SrcStatusline = "statusline"
	SrcFold       = "fold"
	SrcNotify     = "notify"
	SrcKeys       = "keys"
)

// WhereBackground: the session runs with no terminal of its own, in a
// pty its agent's daemon owns (Claude Code's background sessions).
const WhereBackground = "background"

// Permission modes (an event's mode): what the agent does with a tool call
// that may need the user's approval.
const (
	ModeManual      = "manual"       // asks (Claude's "default")
	ModeAuto        = "auto"         // a classifier decides, asks rarely
	ModePlan        = "plan"         // read-only until a plan is approved
	ModeAcceptEdits = "accept-edits" // edits run, commands ask
	ModeBypass      = "bypass"       // never asks
	ModeDontAsk     = "dont-ask"     // never asks: what would ask is refused
)

// Attention says why a session waits for the user.
const (
	AttnPermission = "permission"
	AttnQuestion   = "question"
	AttnPlan       = "plan"
)

// Reasons of a wait.end seen on screen (src pane): what showed instead of
// the prompt.
const (
	ReasonIdle = "idle" // the idle composer: the prompt was dismissed
	ReasonBusy = "busy" // the agent at work: the prompt was answered
)

// ReasonUnread is the reason of a proc.up, and of the state it makes, for
// an agent ag names but reads nothing of: no hooks, no files and no screen
// rules (a process-only definition of the long tail). Its state is idle
// only because nothing says otherwise: the views show "?", not knowing
// what it does.
const ReasonUnread = "unread"

// ReasonEstimated is the reason of a waiting state no source reported:
// the agent's hooks started a tool call and did not end it for longer
// than its approval usually takes (Cursor has no permission hook). Such a
// wait offers no buttons until the pane shows the prompt.
const ReasonEstimated = "estimated"

// ReasonUnchecked is the reason of a wait for an action the agent's
// safety check could not judge (Claude Code's auto mode with the check's
// verdicts dropped on the way): its prompt decides whether the action gets
// its own prompt next, and that prompt is a new wait.
const ReasonUnchecked = "unchecked"

// ReasonBlocked ends a tool call the agent's safety check refused (Claude
// Code's auto mode): it did not run, and the turn goes on.
const ReasonBlocked = "blocked"

// The agent compacting its context is the tool ToolCompact, its text the
// trigger: CompactManual when the user asked for it at the prompt (/compact),
// else "auto" (during or before a turn).
const (
	ToolCompact   = "compact"
	CompactManual = "manual"
)

// Statuses of a folded session (the "status" of a state event).
const (
	StatusIdle    = "idle"
	StatusWorking = "working"
	StatusWaiting = "waiting"
	StatusDone    = "done"
	StatusFailed  = "failed"
	StatusGone    = "gone"
)

// Tokens counts model tokens. On a meter event they are the tokens of one
// model response; on a state event, the session's running total.
type Tokens struct {
	In         int64 `json:"in"`
	Out        int64 `json:"out"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
}

// Add returns t+u.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{t.In + u.In, t.Out + u.Out, t.CacheRead + u.CacheRead, t.CacheWrite + u.CacheWrite}
}

// Total is every token counted once.
func (t Tokens) Total() int64 { return t.In + t.Out + t.CacheRead + t.CacheWrite }

// Context is how much of the model's context window the session uses now.
type Context struct {
	Used int64 `json:"used"`
	Size int64 `json:"size"`
	// LeftPct is the share left, rounded the way the agent shows it.
	LeftPct *int `json:"left_pct,omitzero"`
}

// Limit is one rate-limit window (5-hour, weekly, ...).
type Limit struct {
	Window   string  `json:"window"`
	UsedPct  float64 `json:"used_pct"`
	Minutes  int     `json:"minutes,omitzero"`
	ResetsAt *Time   `json:"resets_at,omitzero"`
}

// Event is one line of the protocol. Fields a kind does not use stay empty
// and are omitted on the wire.
type Event struct {
	V       int    `json:"v"`
	T       Time   `json:"t"`
	Kind    string `json:"kind"`
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session"`
	Src     string `json:"src,omitempty"`
	ID      string `json:"id,omitempty"`

	Run       string `json:"run,omitempty"`
	PID       int    `json:"pid,omitzero"`
	TTY       string `json:"tty,omitempty"`
	Pane      string `json:"pane,omitempty"`
	Host      string `json:"host,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	Branch    string `json:"branch,omitempty"`
	Tool      string `json:"tool,omitempty"`
	ToolID    string `json:"tool_id,omitempty"`
	Attention string `json:"attention,omitempty"`
	Text      string `json:"text,omitempty"`
	// Options are the labels of a question's choices, in the prompt's
	// order (wait and state events): the buttons a notification offers.
	Options []string `json:"options,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	// Why is what made ag-detect say so, for people and jq: the rule that
	// took the process (proc events), the screen state, its line and
	// pattern (pane events).
	Why   string `json:"why,omitempty"`
	Argv0 string `json:"argv0,omitempty"`
	// Where says where a session runs that has no terminal of its own
	// (WhereBackground: Claude Code's --bg); empty for a terminal, which
	// pane and tty name. On a proc.up or proc.down it marks a viewer: a
	// process that shows such a session (claude attach <job>) in a pane.
	Where string `json:"where,omitempty"`
	// Job is the agent's own short id of a background session, what its
	// commands take (claude attach, logs, stop, respawn <job>).
	Job        string `json:"job,omitempty"`
	Transcript string `json:"transcript,omitempty"`
	// Sub is the sub-agent an event is about (Claude agent_id); events of a
	// sub-agent never end the main session's wait.
	Sub string `json:"sub,omitempty"`
	// Prompt is the last prompt the user gave (state events).
	Prompt string `json:"prompt,omitempty"`
	// Pending counts background agents still running when a turn ended.
	Pending int `json:"pending,omitzero"`

	// Meters.
	Model   string   `json:"model,omitempty"`
	Tokens  *Tokens  `json:"tokens,omitzero"`
	Context *Context `json:"context,omitzero"`
	CostUSD *float64 `json:"cost_usd,omitzero"`
	Limits  []Limit  `json:"limits,omitempty"`

	// State (ag-fold). Since is the time of the last status edge, Gen a
	// counter bumped whenever status, attention or the pending tool change;
	// Token joins both and is what an action must quote to be obeyed.
	Status string `json:"status,omitempty"`
	// Mode is the agent's permission mode as last reported (Mode*).
	Mode  string `json:"mode,omitempty"`
	Since *Time  `json:"since,omitzero"`
	Gen   int64  `json:"gen,omitzero"`
	Token string `json:"token,omitempty"`
	// Ambiguous marks a wait that keys cannot be trusted to reach: another
	// session of the same agent process waits too, and a key typed into
	// the pane they share answers whichever dialog it shows (OpenCode's
	// server). Notifications offer no buttons for it; ag-keys refuses it.
	Ambiguous bool `json:"ambiguous,omitzero"`
	// Stale says why a state read back may no longer hold: the ag-fold
	// that kept the state file is gone, or the state's host stopped being
	// heard. ag-fold never writes it for its own sessions; readers set it.
	Stale string `json:"stale,omitempty"`

	// Action / keys (ag-notify, ag-keys).
	Action  string `json:"action,omitempty"`
	Backend string `json:"backend,omitempty"` // notify: which backend delivered
	Ref     string `json:"ref,omitempty"`     // notify: the backend's id for it
	// Sig is an action's signature (HMAC-SHA256 by the user's front-end,
	// see filters/sign): what lets an action that crossed a network type.
	Sig string `json:"sig,omitempty"`

	// Extra holds the members this version does not know, as raw
	// comma-separated "name":value pairs, written back verbatim.
	Extra []byte `json:"-"`
}

// Validate reports the first thing wrong with e as protocol v1.
func (e *Event) Validate() error {
	switch {
	case e.V != Version:
		return fmt.Errorf("unsupported protocol version %d (want %d)", e.V, Version)
	case e.Kind == "":
		return errors.New(`missing "kind"`)
	case e.T.IsZero():
		return errors.New(`missing "t"`)
	}
	return nil
}

// New returns an event of kind with v, t and agent/session set.
func New(kind string, t time.Time, agent, session string) Event {
	return Event{V: Version, T: Time{t}, Kind: kind, Agent: agent, Session: session}
}

// MakeID derives a stable id from the parts, so a replay of the same
// observation produces the same id and folds once. An id only tells
// observations apart, it guards nothing: FNV-1a (80 of its 128 bits) is
// enough, and unlike crypto/sha256 it costs a hook process no start-up.
func MakeID(parts ...string) string {
	h := newFNV128a()
	for _, p := range parts {
		fnvWrite(&h, p)
		fnvWrite(&h, "\x00")
	}
	return h.id()
}

// IDPrefix is MakeID's hash of its first parts, for a reader that makes
// many ids beginning with the same ones (a transcript's source and
// session): Make(rest...) is MakeID(prefix..., rest...), without hashing
// the prefix again.
type IDPrefix struct{ h fnv128a }

// NewIDPrefix hashes the parts every id will begin with.
func NewIDPrefix(parts ...string) IDPrefix {
	h := newFNV128a()
	for _, p := range parts {
		fnvWrite(&h, p)
		fnvWrite(&h, "\x00")
	}
	return IDPrefix{h}
}

// Make is the id of the prefix's parts followed by these.
func (p IDPrefix) Make(parts ...string) string {
	h := p.h
	for _, s := range parts {
		fnvWrite(&h, s)
		fnvWrite(&h, "\x00")
	}
	return h.id()
}

// MakeIDBytes is MakeID(string(b)) without copying b, which may be a
// whole hook payload (PostToolUse carries the tool's output).
func MakeIDBytes(b []byte) string {
	h := newFNV128a()
	fnvWrite(&h, b)
	fnvWrite(&h, "\x00")
	return h.id()
}

// fnv128a is hash/fnv's New128a, inline: through the hash.Hash interface
// every part was copied to the heap, and ag-tail makes an id per event.
type fnv128a struct{ hi, lo uint64 }

func newFNV128a() fnv128a { return fnv128a{0x6c62272e07bb0142, 0x62b821756295c58d} }

// fnvWrite multiplies by the FNV-128 prime, 2^88 + 0x13b, per byte.
func fnvWrite[T string | []byte](h *fnv128a, s T) {
	hi, lo := h.hi, h.lo
	for i := 0; i < len(s); i++ {
		lo ^= uint64(s[i])
		h1, l1 := bits.Mul64(0x13b, lo)
		hi, lo = h1+lo<<24+0x13b*hi, l1
	}
	h.hi, h.lo = hi, lo
}

// id is the first 80 bits of the sum, in hex.
func (h *fnv128a) id() string {
	var b [10]byte
	binary.BigEndian.PutUint64(b[:8], h.hi)
	binary.BigEndian.PutUint16(b[8:], uint16(h.lo>>48))
	return hex.EncodeToString(b[:])
}
