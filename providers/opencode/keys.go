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
//   - question picker: Escape dismisses the question and ends the turn
//     (question.rejected); typed text goes only to its "Type your own
//     answer" row, so no reply is offered on a question.
//   - reply when finished: straight into the composer; a leading "/" is a
//     command and one space in front defuses it, but a leading "!" is
//     shell mode even after spaces, and Enter would run it: refused.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:     []string{"Enter"},
		Deny:        []string{"Escape"},
		SubDeny:     []string{"Escape", "Enter"},
		SubDenyThen: paneRejectReason,
		// The reason dialog already up (Escape was pressed in the pane):
		// Enter rejects; there is nothing to approve from it.
		Screens:         map[string]provider.ScreenKeys{paneRejectReason: {Deny: []string{"Enter"}}},
		FinishedPrelude: []string{},
		DefuseLeading:   " ",
		UnsafeReply:     unsafeReply,
	}
}
