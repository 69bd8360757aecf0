package kilo

import (
	"github.com/agwatch/ag/providers/opencode"
	"github.com/agwatch/ag/providers/provider"
)

// Keys is how to answer Kilo from its pane, verified on 7.7.7 in tmux
// against a fake model (t/e2e):
//
//   - permission dialog (OpenCode's): "Allow once" is highlighted when it
//     opens, so Enter approves once. Escape opens "△ Reject permission —
//     Tell Kilo what to do differently" for every call (OpenCode 1.18.33
//     asks only for a sub-agent's), and Enter there rejects: deny is
//     Escape, then Enter once the pane shows that dialog. Text typed
//     there is the rejection's feedback (the model reads "The user
//     rejected permission to use this specific tool call with the
//     following feedback: …" and goes on): a reply on a permission.
//   - question picker: a digit picks its row at once ("2" answered
//     Green); the last row's digit opens "Type your own answer", whose
//     input takes the text and Enter submits it. An answer that is an
//     option's label goes by its digit, other text into that row, its
//     Enter only once the input shows it.
//   - "Ready to implement?" (the plan agent's plan_exit): "2. Continue
//     here" implements the plan in this session (Kilo switches to the
//     Code agent and prompts "Implement the plan above."); Escape
//     dismisses it, the session staying with the plan agent; "4. Type
//     your own answer" takes feedback.
//   - reply when finished: as OpenCode's composer (a leading space
//     defuses "/"; "!" is shell mode after spaces too: refused).
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:  []string{"Enter"},
		Deny:     []string{"Escape", "Enter"},
		DenyThen: opencode.PaneRejectReason,
		// The reason dialog already up (Escape was pressed in the pane):
		// Enter rejects, and nothing approves from it.
		Screens:           map[string]provider.ScreenKeys{opencode.PaneRejectReason: {Deny: []string{"Enter"}}},
		PermissionPrelude: []string{"Escape"},
		PlanApprove:       []string{"2"},
		PlanDeny:          []string{"Escape"},
		PlanPrelude:       []string{"4"},
		AnswerRow:         provider.RowsByDigit,
		AnswerPrelude:     []string{},
		Input:             []string{paneOwnAnswer, opencode.PaneRejectReason},
		FinishedPrelude:   []string{},
		NoReply:           map[string]string{paneShell: "the composer is in shell mode: Enter would run the reply as a command"},
		DefuseLeading:     " ",
		UnsafeReply: func(text string) string {
			if opencode.UnsafeReply(text) != "" {
				return "a reply starting with ! runs as a shell command in Kilo"
			}
			return ""
		},
	}
}
