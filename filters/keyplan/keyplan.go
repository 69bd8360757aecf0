// Package keyplan decides what to type into an agent's pane for an action,
// or why not to: given the session's folded state, the action, its text and
// token, and the agent's KeyMap, it returns the keystrokes with their
// timing, or a refusal. It does no I/O; cmd/ag-keys checks the pane and
// types the plan.
package keyplan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/filters/safetext"
	"github.com/agwatch/ag/providers/provider"
)

// Step is one send: tmux key names, or literal text, after waiting Wait.
type Step struct {
	Wait    time.Duration
	Keys    []string // send-keys names (Escape, Enter, 1)
	Literal string   // send-keys -l text
	Paste   bool     // Literal goes in as one bracketed paste
	// Shown: send Keys only once the pane shows the text typed before in
	// a prompt's input (KeyMap.Input).
	Shown bool
	// Await: send Keys only once the pane shows this state (a dialog the
	// keys before opened).
	Await string
	// Optional: Await's state may never show (a form that asks another
	// question before its review); this step and those after it are then
	// left, and what was typed stands.
	Optional bool
}

// Plan is what to type for one action.
type Plan struct {
	Steps []Step
	// Text is the reply exactly as it will be typed ("" for key actions).
	Text string
	// Truncated says the reply was longer than provider.MaxReply.
	Truncated bool
}

// Refusal is an action ag-keys will not perform; Reason says why, in words
// that fit in a notification.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

func refuse(format string, a ...any) (Plan, error) {
	return Plan{}, &Refusal{Reason: fmt.Sprintf(format, a...)}
}

// Request is one action against one session's current state.
type Request struct {
	State  event.Event // the session's state (kind state)
	Action string      // provider.ActApprove, ...
	Text   string      // reply or answer text
	Token  string      // the state token the action was offered under
	// RequireToken refuses an action that quotes no token (actions that
	// come from a notification always should).
	RequireToken bool
	// Screen is how the agent's pane rules classified the pane at press
	// time (nil: not looked at). Claude's hooks report a plan approval and
	// a question picker as a permission prompt, so for the split between
	// them the pane is authoritative, as it is for "the prompt is gone",
	// for a composer that takes no reply (KeyMap.NoReply) and for a prompt
	// up while the state says the session finished.
	Screen *panes.Result
}

// Decide returns the plan for r, or a *Refusal.
func Decide(r Request, km provider.KeyMap) (Plan, error) {
	st := r.State
	if err := CheckToken(r); err != nil {
		return Plan{}, err
	}
	waiting := st.Status == event.StatusWaiting
	if waiting && st.Ambiguous && Typed(r.Action) {
		// Another session of the agent's process waits too: the keys
		// would answer whichever of their dialogs the pane shows.
		return refuse("another session of this %s process is waiting too: answer in the pane", st.Agent)
	}
	attn := st.Attention
	if waiting && st.Reason == event.ReasonEstimated && Typed(r.Action) && (r.Screen == nil || r.Screen.Kind != panes.Wait) {
		// No hook said the agent asks: only the pane can.
		return refuse("the wait is estimated (no hook reports %s's prompts) and the pane does not show a prompt", st.Agent)
	}
	if waiting && r.Screen != nil && st.Reason == event.ReasonUnchecked && len(km.Unchecked) > 0 &&
		Typed(r.Action) && !slices.Contains(km.Unchecked, r.Screen.State) {
		return refuse("the hold this wait is for has gone (the pane shows %s): answer the wait that follows it", orNone(r.Screen.State))
	}
	if waiting && r.Screen != nil {
		var why string
		if attn, why = onScreen(attn, r.Screen); why != "" {
			return refuse("%s", why)
		}
		// Deny (Escape) and a reply are the same on both: only an
		// approve could type a plan's keys into a permission prompt.
		approve := r.Action == provider.ActApprove || r.Action == provider.ActPlanApprove
		if approve && st.Attention == event.AttnPermission && attn == event.AttnPlan && !planProven(km, r.Screen.State) {
			return refuse("the hooks report a permission prompt and the pane shows a plan without its plan file: approve in the pane")
		}
	}
	if r.Screen != nil && (r.Action == provider.ActReply || r.Action == provider.ActAnswer) {
		if why := km.NoReply[r.Screen.State]; why != "" {
			return refuse("%s", why)
		}
		if !waiting && r.Screen.Kind == panes.Wait {
			// The state is behind: text typed into a prompt answers it.
			return refuse("the pane shows a %s prompt, the state says %s", orNone(r.Screen.Attention), orNone(st.Status))
		}
	}
	switch r.Action {
	case provider.ActApprove, provider.ActDeny:
		if !waiting {
			return refuse("not waiting for approval (status %s)", orNone(st.Status))
		}
		plan := attn == event.AttnPlan
		if !plan && attn != event.AttnPermission {
			return refuse("waiting on a %s, not a permission or plan", orNone(attn))
		}
		keys, then := pick(r.Action == provider.ActApprove, plan, km, r.Screen, st.Sub != "")
		if len(keys) == 0 {
			return refuse("%s offers no %s for a %s wait", st.Agent, r.Action, attn)
		}
		steps := press(keys)
		if then != "" && len(steps) > 1 {
			steps[1].Await = then
		}
		return Plan{Steps: steps}, nil
	case provider.ActPlanApprove, provider.ActPlanDeny:
		if !waiting || attn != event.AttnPlan {
			return refuse("not waiting on a plan (status %s, attention %s)", orNone(st.Status), orNone(attn))
		}
		keys, then := pick(r.Action == provider.ActPlanApprove, true, km, r.Screen, false)
		if len(keys) == 0 {
			return refuse("%s offers no %s", st.Agent, r.Action)
		}
		steps := press(keys)
		if then != "" && len(steps) > 1 {
			// A menu the first key opens; should it never show, what was
			// typed stands and the rest is the user's.
			steps[1].Await, steps[1].Optional = then, true
		}
		return Plan{Steps: steps}, nil
	case provider.ActAnswer:
		if !waiting || attn != event.AttnQuestion {
			return refuse("not waiting on a question (status %s, attention %s)", orNone(st.Status), orNone(attn))
		}
		return answer(r, km)
	case provider.ActReply:
		switch {
		case waiting && attn == event.AttnPermission:
			plan, err := reply(r, km.PermissionPrelude, "a permission wait", km, true)
			if err == nil && km.DenyThen != "" && len(km.PermissionPrelude) > 0 {
				plan.Steps[len(km.PermissionPrelude)].Await = km.DenyThen // the text
			}
			return plan, err
		case waiting && attn == event.AttnPlan:
			return reply(r, km.PlanPrelude, "a plan wait", km, true)
		case waiting && attn == event.AttnQuestion:
			return answer(r, km)
		case waiting:
			return refuse("waiting on %s; no reply is safe", orNone(attn))
		case st.Status == event.StatusDone || st.Status == event.StatusIdle || st.Status == event.StatusFailed:
			return reply(r, km.FinishedPrelude, "a finished session", km, false)
		default:
			return refuse("no reply while the session is %s", orNone(st.Status))
		}
	case provider.ActFocus, provider.ActOpen:
		return refuse("%s is not typed into a pane", r.Action)
	case "":
		return refuse("no action")
	}
	return refuse("unknown action %q", r.Action)
}

// onScreen reconciles the state's attention with what the pane shows. A
// permission state whose pane shows a plan or a question is that (the hook
// cannot tell them apart; on Claude a permission "1" on a plan is auto
// mode). Any other disagreement, or a pane that positively shows no prompt
// (idle composer, working), refuses: keys meant for a prompt would land in
// the composer. A pane the rules do not recognise leaves the state's word.
func onScreen(attn string, sc *panes.Result) (string, string) {
	switch sc.Kind {
	case panes.Wait:
		switch {
		case sc.Attention == attn:
		case attn == event.AttnPermission && (sc.Attention == event.AttnPlan || sc.Attention == event.AttnQuestion):
			return sc.Attention, ""
		default:
			return attn, fmt.Sprintf("the pane shows a %s prompt, the state a %s", sc.Attention, orNone(attn))
		}
	case panes.Idle, panes.Busy:
		return attn, fmt.Sprintf("the pane shows no prompt (%s)", sc.Kind)
	}
	return attn, ""
}

// planProven reports whether a pane state may turn a wait the hooks
// called a permission into a plan (KeyMap.PlanProof).
func planProven(km provider.KeyMap, state string) bool {
	if km.PlanProof == nil || slices.Contains(km.PlanProof, state) {
		return true
	}
	_, own := km.Screens[state]
	return own
}

// Typed reports whether action is one Decide may answer with keys (focus
// and unknown actions are always refused).
func Typed(action string) bool {
	switch action {
	case provider.ActApprove, provider.ActDeny, provider.ActPlanApprove, provider.ActPlanDeny, provider.ActReply, provider.ActAnswer:
		return true
	}
	return false
}

// CheckToken is Decide's staleness check alone (a *Refusal or nil), for
// callers that want to refuse a stale action before looking at the pane.
func CheckToken(r Request) error {
	switch {
	case r.Token == "" && r.RequireToken:
		return &Refusal{Reason: "the action quotes no state token"}
	case r.Token != "" && r.Token != r.State.Token:
		return &Refusal{Reason: fmt.Sprintf("stale: the session moved on (token %s, now %s)", r.Token, orNone(r.State.Token))}
	}
	return nil
}

// pick is the keys for approve (else deny) on a plan or permission wait:
// the screen's own keys when the pane shows a picker that has them, else
// a sub-agent's deny keys for a sub-agent's wait (sub), else the map's.
// then is the pane state the keys after the first wait for, if any.
func pick(approve, plan bool, km provider.KeyMap, screen *panes.Result, sub bool) (keys []string, then string) {
	if screen != nil && screen.Kind == panes.Wait {
		if sk, ok := km.Screens[screen.State]; ok {
			if approve {
				return sk.Approve, ""
			}
			return sk.Deny, ""
		}
	}
	switch {
	case !approve && !plan && sub && len(km.SubDeny) > 0:
		return km.SubDeny, km.SubDenyThen
	case approve && plan:
		return km.PlanApprove, km.PlanApproveThen // never the permission approve: on Claude "1" is auto mode
	case plan:
		return km.PlanDeny, ""
	case approve:
		return km.Approve, ""
	}
	return km.Deny, km.DenyThen
}

func press(keys []string) []Step {
	steps := make([]Step, len(keys))
	for i, k := range keys {
		steps[i] = Step{Keys: []string{k}}
		if i > 0 {
			steps[i].Wait = provider.KeyGap
		}
	}
	return steps
}

// answer types the text as a question's own answer: straight into the
// question's text field when the pane shows one (KeyMap.Fields); into the
// picker's own-answer row when the agent's picker takes one (reached by
// Down, or by its digit), else after AnswerPrelude. An answer that is one
// of the picker's options, in any case, picks that option
// (KeyMap.AnswerRow).
func answer(r Request, km provider.KeyMap) (Plan, error) {
	if r.Screen != nil && km.AnswerSubmitOn != "" && r.Screen.State == km.AnswerSubmitOn {
		return refuse("the answers wait to be submitted: submit or cancel them in the pane")
	}
	plan, err := answerKeys(r, km)
	if err == nil && km.AnswerSubmitOn != "" {
		plan.Steps = append(plan.Steps, Step{Keys: km.AnswerSubmit, Await: km.AnswerSubmitOn, Optional: true})
	}
	return plan, err
}

// answerKeys is the keys of an answer before any confirmation of it.
func answerKeys(r Request, km provider.KeyMap) (Plan, error) {
	prelude := km.AnswerPrelude
	var p *panes.Picker
	if r.Screen != nil {
		if r.Screen.Kind == panes.Wait && slices.Contains(km.Fields, r.Screen.State) {
			return reply(r, []string{}, "a question", km, false)
		}
		p = r.Screen.Picker
	}
	byDigit := km.AnswerRow == provider.RowsByDigit || km.AnswerRow == provider.LabelsByDigit
	switch {
	case km.AnswerRow == provider.OptionsByDigit:
		if p == nil || len(p.Labels) > 9 {
			return refuse("the pane does not show the question's picker: answer in the pane")
		}
		if plan, ok := option(r, p, true); ok {
			return plan, nil
		}
		return refuse("only an option of %s's question is typed: answer in the pane", r.State.Agent)
	case prelude == nil || km.AnswerRow == "":
	case km.AnswerRow == provider.RowsByDown && p == nil:
		return refuse("the pane does not show the question's picker: answer in the pane")
	case byDigit && (p == nil || len(p.Labels) > 9):
		// no digits to press: the prelude alone
	default:
		if plan, ok := option(r, p, byDigit); ok {
			return plan, nil
		}
		switch km.AnswerRow {
		case provider.RowsByDown:
			prelude = append(slices.Repeat([]string{"Down"}, p.Down), prelude...)
		case provider.RowsByDigit:
			prelude = []string{strconv.Itoa(p.At + p.Down + 1)}
		}
	}
	return reply(r, prelude, "a question", km, true)
}

// Options are the labels of the question picker a screen shows that an
// answer picks by label (Decide types that option's keys): the picker's
// rows but the own answer's, when the agent's keys reach them so. A tab
// of a form of several questions, a question's own text field, a picker
// the agent's keys do not pick by label and one of more than nine rows
// where a digit picks have none.
func Options(km provider.KeyMap, sc *panes.Result) []string {
	p := sc.Picker
	if sc.Kind != panes.Wait || sc.Attention != event.AttnQuestion || p == nil || slices.Contains(km.Fields, sc.State) {
		return nil
	}
	switch km.AnswerRow {
	case provider.OptionsByDigit:
	case provider.RowsByDigit, provider.LabelsByDigit, provider.RowsByDown:
		if km.AnswerPrelude == nil {
			return nil
		}
	default:
		return nil
	}
	if km.AnswerRow != provider.RowsByDown && len(p.Labels) > 9 {
		return nil
	}
	var out []string
	for _, l := range p.Options() {
		// option picks the first row a label matches: a repeat is never
		// picked.
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, l) }) {
			out = append(out, l)
		}
	}
	return out
}

// option is the keys that pick the picker's option whose label is the
// answer: its digit, or Up or Down to it and Enter.
func option(r Request, p *panes.Picker, digits bool) (Plan, bool) {
	text, _ := Sanitize(r.Text, provider.MaxReply)
	for i, label := range p.Labels {
		if text == "" || i == p.At+p.Down || !strings.EqualFold(label, text) {
			continue
		}
		if digits {
			return Plan{Steps: press([]string{strconv.Itoa(i + 1)})}, true
		}
		key, n := "Down", i-p.At
		if n < 0 {
			key, n = "Up", -n
		}
		return Plan{Steps: press(append(slices.Repeat([]string{key}, n), "Enter"))}, true
	}
	return Plan{}, false
}

// reply types text after prelude; to a prompt (wait) the text lands in
// the prompt itself when the prelude is empty.
func reply(r Request, prelude []string, where string, km provider.KeyMap, prompt bool) (Plan, error) {
	if prelude == nil {
		return refuse("%s offers no reply on %s", r.State.Agent, where)
	}
	text, truncated := Sanitize(r.Text, provider.MaxReply)
	if text == "" {
		return refuse("empty reply")
	}
	if prompt && len(prelude) == 0 && len(text) == 1 && text[0] >= '0' && text[0] <= '9' {
		return refuse("a reply of one digit would pick that option of the prompt: answer in words, or approve")
	}
	if km.UnsafeReply != nil {
		if why := km.UnsafeReply(text); why != "" {
			return refuse("unsafe reply: %s", why)
		}
	}
	if km.DefuseLeading != "" && (text[0] == '/' || text[0] == '!') {
		text = km.DefuseLeading + text
	}
	steps := press(prelude)
	lit := Step{Literal: text, Paste: km.Paste}
	if len(prelude) > 0 {
		lit.Wait = provider.Settle
	}
	steps = append(steps, lit, Step{Wait: provider.EnterDelay, Keys: []string{"Enter"}, Shown: prompt && len(km.Input) > 0})
	return Plan{Steps: steps, Text: text, Truncated: truncated}, nil
}

// Sanitize makes text one line a composer takes as typed: line breaks and
// tabs become spaces (a newline would submit early), every other control
// C0/C1 control character (ESC, DEL, NUL, ...) and bidi control is
// dropped, surrounding space and what shows nothing at the start (a zero
// width space, a byte order mark, a soft hyphen: safetext.TrimInvisible)
// trimmed, so the first character an unsafe-reply check sees is the one a
// composer that trims sees, and the result cut to max characters.
func Sanitize(text string, max int) (string, bool) {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(text))
	for _, c := range text {
		switch {
		case c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f' || c == 0x85 || c == 0x2028 || c == 0x2029:
			b.WriteByte(' ')
		case unicode.IsControl(c), safetext.Bad(c):
		default:
			b.WriteRune(c)
		}
	}
	s := strings.TrimRightFunc(safetext.TrimInvisible(b.String()), func(r rune) bool {
		return unicode.IsSpace(r) || safetext.Invisible(r)
	})
	if utf8.RuneCountInString(s) <= max {
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return strings.TrimSpace(s[:i]), true
		}
		n++
	}
	return s, false
}

// Describe says what a plan types, for the keys event's text:
// `Escape, 150ms, "it works", 150ms, Enter` (a pasted text: `paste "it
// works"`).
func Describe(p Plan) string {
	var parts []string
	for _, s := range p.Steps {
		if s.Wait > 0 {
			parts = append(parts, s.Wait.String())
		}
		switch {
		case s.Keys != nil && s.Shown:
			parts = append(parts, strings.Join(s.Keys, " ")+" once shown")
		case s.Keys != nil && s.Await != "" && s.Optional:
			parts = append(parts, strings.Join(s.Keys, " ")+" if "+s.Await+" shows")
		case s.Keys != nil && s.Await != "":
			parts = append(parts, strings.Join(s.Keys, " ")+" once "+s.Await+" shows")
		case s.Keys != nil:
			parts = append(parts, strings.Join(s.Keys, " "))
		case s.Paste:
			parts = append(parts, "paste "+strconv.Quote(s.Literal)+once(s.Await))
		default:
			parts = append(parts, strconv.Quote(s.Literal)+once(s.Await))
		}
	}
	return strings.Join(parts, ", ")
}

// once says which pane state a literal waits for, if any.
func once(state string) string {
	if state == "" {
		return ""
	}
	return " once " + state + " shows"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
