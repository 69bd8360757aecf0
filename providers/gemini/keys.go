package gemini

import (
	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Keyed     = (*Provider)(nil)
	_ provider.Commanded = (*Provider)(nil)
)

// Keys is how to answer Gemini CLI from its pane (verified on 0.61.0 in
// tmux against the fake model server, make e2e):
//
//   - permission box ("Allow execution of [Shell]?", "Apply this
//     change?", "● 1. Allow once", "2. Allow for this session", "3. No,
//     suggest changes (esc)"): digits select and submit, so "1" allows
//     once; Escape is "No": the tool does not run, "Request cancelled."
//     and the turn ends at the composer. No reply on a permission: Escape
//     cancels the turn, it opens no composer with the tool pending.
//   - question (ask_user, "Answer Questions"): a digit picks an option
//     at once, so an answer that is an option's label is its digit; a
//     printable key focuses "Enter a custom value" and starts
//     it — at every key of a burst that outruns the redraw (typed
//     "Purple" became "e"). A paste it takes whole, focusing the value
//     (with a Space first the paste could land between the value's focus
//     and its input's, and vanish). So an answer is the text as one
//     bracketed paste, then Enter — once the cursor's row shows the text:
//     an Enter before that picks the option the cursor is on. A reply of
//     one digit would pick that option, and is refused. A question that
//     takes text takes the same. Escape dismisses the dialog ("Request
//     cancelled."). With several questions each answer moves to the next
//     one, and the last to a review that Enter submits: no answer is
//     typed there.
//   - plan (exit_plan_mode, "Ready to start implementation?"): "2" is
//     "Yes, manually accept edits" (the plan approved, edits still asked
//     about); never "1", which accepts every edit. Escape cancels and
//     leaves plan mode on; a reply is feedback, pasted like an answer
//     ("Plan rejected. User feedback: …", still in plan mode).
//   - reply when finished: straight into the composer. Gemini trims
//     leading white space before it looks for "/" (a slash command) and
//     "!" (shell mode), so no defuse works and such text is refused; in
//     shell mode (the composer says "shell mode enabled") nothing is
//     typed at all. An Enter that reaches Gemini within 30 ms of the text
//     by its clock — its event loop busy, with the hooks of the turn that
//     just ended, on a loaded machine — is read as a newline and leaves
//     the reply in the composer: the composer is checked, and Enter
//     pressed once more.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:         []string{"1"},
		Deny:            []string{"Escape"},
		PlanApprove:     []string{"2"},
		PlanDeny:        []string{"Escape"},
		AnswerPrelude:   []string{},
		AnswerRow:       provider.LabelsByDigit,
		PlanPrelude:     []string{},
		FinishedPrelude: []string{},
		UnsafeReply:     provider.LeadingCommand,
		Paste:           true,
		NoReply: map[string]string{
			paneShell:  "the composer is in shell mode: the reply would run as a shell command",
			paneReview: "the questions are answered and wait for Enter in the pane",
		},
		Input:  []string{paneAnswer, paneFeed},
		Unsent: []string{paneDraft},
	}
}

// Commands are Gemini CLI's command lines (`gemini --help`, 0.61.0):
// -i/--prompt-interactive submits a prompt and stays interactive (-p is
// headless, one turn); --resume takes the session id /quit prints ("To
// resume this session: gemini --resume <uuid>"); -m names the model and
// goes last on a resume. No fork: nothing gives a resumed chat a new id.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "gemini",
		Resume:    "{bin} --resume '{id}'",
		Spawn:     "{bin} -i '{prompt}'",
		ModelFlag: "-m",
	}
}
