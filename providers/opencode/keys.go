package opencode

import "github.com/agwatch/ag/providers/provider"

// Keys is how to answer OpenCode from its pane, verified on 1.18.33 in
// tmux against a fake model:
//
//   - permission dialog ("△ Permission required", "Allow once   Allow
//     always   Reject", "⇆ select  enter confirm"): "Allow once" is
//     highlighted when it opens, so Enter approves once. Escape rejects:
//     permission.replied "reject", the tool does not run, the turn ends
//     at the composer. (ccmux saw Escape leave the turn hung on 1.18.3;
//     1.18.33 rejects cleanly.)
//   - a sub-agent's dialog (the task tool's session) looks the same, but
//     Escape there opens "△ Reject permission — Tell OpenCode what to do
//     differently — enter confirm  esc cancel": Escape then Enter rejects
//     with no reason. Enter waits until the pane shows that dialog: sent
//     30 ms after Escape it was lost about one time in two in make e2e
//     (the permission dialog stayed), where it had passed 3 of 3.
//   - question picker ("1. a.go" … "3. Type your own answer", "↑↓ select
//     enter submit  esc dismiss"): a digit picks that row and answers at
//     once (question.replied), so an answer that is an option's label is
//     its digit. Escape dismisses the question and ends the turn
//     (question.rejected); typed text goes only into the own answer's
//     input, and nothing typed from outside backs out of it, so no other
//     answer or reply is offered on a question (OptionsByDigit), nor a
//     digit while that input is open (question-own: it would be text).
//   - reply when finished: straight into the composer; a leading "/" is a
//     command and one space in front defuses it, but a leading "!" is
//     shell mode even after spaces, and Enter would run it: refused.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:     []string{"Enter"},
		Deny:        []string{"Escape"},
		SubDeny:     []string{"Escape", "Enter"},
		SubDenyThen: PaneRejectReason,
		// The reason dialog already up (Escape was pressed in the pane):
		// Enter rejects; there is nothing to approve from it.
		Screens:         map[string]provider.ScreenKeys{PaneRejectReason: {Deny: []string{"Enter"}}},
		AnswerRow:       provider.OptionsByDigit,
		FinishedPrelude: []string{},
		DefuseLeading:   " ",
		UnsafeReply:     UnsafeReply,
	}
}
