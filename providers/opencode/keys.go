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
//     with no reason. Verified 3 of 3 with keys 30 ms apart.
//   - question picker: Escape dismisses the question and ends the turn
//     (question.rejected); typed text goes only to its "Type your own
//     answer" row, so no reply is offered on a question.
//   - reply when finished: straight into the composer; a leading "/" is a
//     command and one space in front defuses it, but a leading "!" is
//     shell mode even after spaces, and Enter would run it: refused.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve: []string{"Enter"},
		Deny:    []string{"Escape"},
		SubDeny: []string{"Escape", "Enter"},
		// The reason dialog already up (Escape was pressed in the pane):
		// Enter rejects; there is nothing to approve from it.
		Screens:         map[string]provider.ScreenKeys{"reject-reason": {Deny: []string{"Enter"}}},
		FinishedPrelude: []string{},
		DefuseLeading:   " ",
		UnsafeReply:     unsafeReply,
	}
}
