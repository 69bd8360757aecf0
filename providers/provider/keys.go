package provider

import (
	"strings"
	"time"
)

// Actions a notification can offer and ag-keys performs.
const (
	ActApprove     = "approve"
	ActDeny        = "deny"
	ActReply       = "reply"
	ActAnswer      = "answer"
	ActPlanApprove = "plan-approve"
	ActPlanDeny    = "plan-deny"
	ActFocus       = "focus"
	// ActOpen shows a session that has no pane (a background session) in
	// a new tmux window: for Claude Code one running `claude attach <job>`.
	ActOpen = "open"
)

// KeyMap is how to answer an agent by typing into its pane: tmux key names
// (send-keys without -l). An empty list means the agent offers no such
// action and nobody should offer it. Each entry was verified against the
// real agent (see the provider's comments).
type KeyMap struct {
	Approve     []string // permission wait: allow once
	Deny        []string // permission wait: refuse, the tool does not run
	PlanApprove []string // plan wait: approve, keep edits gated
	// PlanApproveThen names the pane state PlanApprove's second key waits
	// for (a menu its first key opens: Droid's autonomy); "" types them all
	// KeyGap apart.
	PlanApproveThen string
	PlanDeny        []string // plan wait: refuse, stay in plan mode
	// SubDeny replaces Deny on a sub-agent's permission wait (the state's
	// sub is set), when its dialog differs: OpenCode asks for a reason
	// before it rejects a sub-agent's tool call.
	SubDeny []string
	// SubDenyThen, when set, is the pane state SubDeny's first key opens
	// (OpenCode's reason dialog): the rest of SubDeny is sent only once
	// the pane shows it, never into the dialog before it.
	SubDenyThen string
	// DenyThen, when set, is the pane state Deny's first key opens, and
	// PermissionPrelude too (Kilo asks what to do differently before it
	// rejects any call): the rest of Deny, and a reply's text, are sent
	// only once the pane shows it.
	DenyThen string

	// Replies type literal text after a prelude. A nil prelude means no
	// reply is offered in that situation; an empty non-nil one means the
	// text goes straight in.
	AnswerPrelude     []string // question wait (picker): how to reach a composer
	PermissionPrelude []string // permission wait: deny-with-feedback
	PlanPrelude       []string // plan wait: refuse and say what to change
	FinishedPrelude   []string // done/idle: reply at the composer

	// AnswerRow says how an answer reaches the own-answer row of the
	// question's picker, read from the pane at press time
	// (panes.Result.Picker); "" means it does not, and AnswerPrelude
	// leads as for any reply. Either way an answer that is an option's
	// label (any case) picks that option instead: its digit, or Up or
	// Down to it and Enter.
	AnswerRow RowKeys

	// AnswerSubmitOn, when set, is the pane state an answer leads to that
	// asks for the answers to be confirmed before they are sent (Kimi
	// Code's "Ready to submit your answers?"): AnswerSubmit is typed once
	// the pane shows it. No answer is typed while the pane shows it.
	AnswerSubmitOn string
	AnswerSubmit   []string

	// Fields names pane states that show a question's own text field
	// with the cursor in it (Copilot's ask_user field of free text): an
	// answer is its text and Enter, typed straight in whatever AnswerRow
	// says, and any text is an answer there, a digit too.
	Fields []string

	// Paste types a reply's text as one bracketed paste (tmux paste-buffer
	// -p) rather than a burst of keys: one input event, however busy the
	// agent is. Gemini's question starts its custom value afresh at each
	// key of a burst that outruns its redraw.
	Paste bool

	// DefuseLeading is typed before a reply that starts with "/" or "!" so
	// the composer reads it as text, not a command or shell mode; "" when
	// the agent trims and re-parses (then UnsafeReply must refuse instead).
	DefuseLeading string

	// Grace is how long a prompt ignores keys after it shows (Claude Code
	// 2.1.332 drops the keys a dialog gets in its first ~0.1–0.15 s, so
	// that keys typed ahead do not answer it): ag-keys types into a prompt
	// only once it has been on screen this long. 0: at once.
	Grace time.Duration

	// Screens replaces the approve/deny keys (plan or permission) while
	// the pane, at press time, shows the named pane state (panes.State
	// Name): one kind of wait can come in pickers whose options differ.
	Screens map[string]ScreenKeys

	// PlanProof names the pane states that show a plan with what no
	// permission prompt can draw (Claude's plan file footer). A wait the
	// hooks reported as a permission is taken for a plan, and answered
	// with PlanApprove, only on one of them (or on a state with Screens
	// keys of its own): Claude's plan "2" is a permission's "don't ask
	// again". Nil: any plan screen will do.
	PlanProof []string

	// NoReply names pane states in which no reply or answer is typed, and
	// why: a composer in shell mode would run the text as a command.
	NoReply map[string]string

	// Input names pane states that show a prompt's input (a question's
	// own answer, a plan's feedback) holding typed text, their Text what
	// it holds. A reply to a wait then gets its Enter only once the pane
	// shows it there: an Enter into a picker before its input took the
	// text picks the option highlighted instead.
	Input []string

	// Unsent names pane states that show typed text not sent, their Text
	// what the input holds. When a reply's Enter leaves the reply there
	// (Gemini reads an Enter its busy event loop takes within 30 ms of the
	// text as a newline), ag-keys presses Enter once more.
	Unsent []string

	// Unchecked names the pane states that show a hold auto mode put up
	// for a call it could not check (Claude's "Auto mode can't check
	// actions"): a wait the hooks report with reason unchecked is typed
	// into on one of them alone. Enter there only leads on to the call's
	// own prompt; a press meant for the hold must never approve that
	// prompt when the pane got there before the state did.
	Unchecked []string

	// UnsafeReply says why text must not be typed as a reply ("" if fine):
	// a leading "!" runs a shell in some agents, "/" a command. It sees the
	// sanitised text before any defuse. Nil means nothing is refused.
	UnsafeReply func(text string) string
}

// RowKeys are how a picker's rows are reached.
type RowKeys string

const (
	// RowsByDown: Down from the cursor as many rows as the pane shows,
	// then AnswerPrelude (omp's "Other (type your own)" and Copilot's
	// "Other (type your answer)", reached only so); no answer is typed
	// when the pane shows no such picker.
	RowsByDown RowKeys = "down"
	// RowsByDigit: the row's digit, for at most nine rows (Claude's
	// "Type something."); without such a picker, AnswerPrelude alone.
	RowsByDigit RowKeys = "digit"
	// LabelsByDigit: only an answer that is an option's label goes by
	// its digit; other text follows AnswerPrelude as for any reply
	// (Gemini's custom value takes the text where it is typed).
	LabelsByDigit RowKeys = "labels"
	// OptionsByDigit: only an answer that is an option's label is typed,
	// as its digit; any other text is refused (OpenCode's question, whose
	// own answer nothing types safely from outside).
	OptionsByDigit RowKeys = "options"
)

// PaneChosen reports whether some picker's approve keys come from Screens
// alone: the action is offered, and typed only once the pane, read at
// press time, names the picker (Copilot's plan review, whose rows move).
func (k KeyMap) PaneChosen() bool {
	for _, sk := range k.Screens {
		if len(sk.Approve) > 0 {
			return true
		}
	}
	return false
}

// ScreenKeys are the approve and deny keys of one particular picker.
type ScreenKeys struct {
	Approve []string
	Deny    []string
}

// Timing of typed keys (ccmux's verified figures): keys of one action go
// KeyGap apart; after a reply's prelude the composer gets Settle to appear;
// Enter follows the literal text by EnterDelay, so a TUI that batches a
// fast burst of input does not read the Enter as part of a paste.
const (
	KeyGap     = 30 * time.Millisecond
	Settle     = 150 * time.Millisecond
	EnterDelay = 150 * time.Millisecond
	// MaxReply caps a reply, in characters, after sanitising.
	MaxReply = 2000
	// SentCheck is how long after a reply's Enter ag-keys watches a pane
	// with Unsent states for the reply left in its input, and how long it
	// waits for a prompt's input to show a reply (Input) before its Enter.
	SentCheck = 3 * time.Second
)

// Keyed is a provider whose prompts ag-keys can answer.
type Keyed interface {
	Provider
	Keys() KeyMap
}

// LeadingCommand is an UnsafeReply for composers that trim leading white
// space and then read a first "/" as a slash command and "!" as shell mode
// (Gemini CLI, Antigravity's agy): no defusing space survives the trim, so
// such text is refused.
func LeadingCommand(text string) string {
	switch t := strings.TrimLeft(text, " \t\r\n\v\f\u00a0\u3000"); {
	case strings.HasPrefix(t, "/"):
		return "a reply starting with / runs as a slash command"
	case strings.HasPrefix(t, "!"):
		return "a reply starting with ! runs as a shell command"
	}
	return ""
}
