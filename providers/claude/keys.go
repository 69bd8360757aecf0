package claude

import "github.com/agwatch/ag/providers/provider"

// Keys is how to answer Claude Code from its pane, verified on Claude Code
// 2.1.209–2.1.220 (the seeds' "Claude-specific caveats"):
//
//   - permission prompt: "1" allows once (digits select and submit, no
//     Enter); Escape denies ("Esc to cancel": the tool does not run).
//   - plan approval (ExitPlanMode): "2" is "Yes, manually approve edits".
//     Never "1": that is "Yes, and use auto mode", which stops gating edits.
//     Escape refuses and leaves plan mode on. Without a plan file (the
//     model called ExitPlanMode without writing one) Claude Code 2.1.197
//     asks a bare "Exit plan mode?" with "1. Yes" (leave plan mode, edits
//     still gated: the footer goes back to "? for shortcuts") and "2. No":
//     there "2" would refuse the plan, so that picker (pane state
//     "plan-exit") approves with "1".
//   - question (AskUserQuestion picker), checked on 2.1.197 in make e2e:
//     a digit picks its option and submits it, so an answer that is an
//     option's label is that digit; the digit of the last row, "Type
//     something.", moves there and the row takes typed text, which Enter
//     submits as the question's own answer ("User answered …: Which
//     colour? → Teal please"). The picker ignores text typed on any other
//     row. A multi-select ("[ ]" rows) or several questions (a tab row
//     ending in "✔ Submit") are not read: there an answer is Escape
//     (cancel to an empty composer), a settle, then the text + Enter as
//     the next user message.
//   - reply on a permission or plan wait: Escape first, so the reply is a
//     deny-with-feedback.
//   - reply when finished: NO prelude. Escape at the idle composer clears a
//     half-typed draft and a second one opens history rewind.
//
// Claude's composer reads a leading "/" as a slash command and a leading "!"
// as bash mode, but decides that before trimming: a reply starting with "/"
// or "!" is typed with one space in front, and Claude sends it to the model
// as a message with the space trimmed (verified on 2.1.197 by the e2e
// TestClaudeReplyDefused; the seeds record the opposite for Codex's "!",
// OpenCode's "!", Pi, omp, Gemini, agy and Copilot, which are refused
// instead). No reply text is refused for Claude.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:           []string{"1"},
		Deny:              []string{"Escape"},
		PlanApprove:       []string{"2"},
		PlanDeny:          []string{"Escape"},
		AnswerPrelude:     []string{"Escape"},
		AnswerRow:         provider.RowsByDigit,
		PermissionPrelude: []string{"Escape"},
		PlanPrelude:       []string{"Escape"},
		FinishedPrelude:   []string{},
		DefuseLeading:     " ",
		Screens: map[string]provider.ScreenKeys{
			"plan-exit": {Approve: []string{"1"}, Deny: []string{"Escape"}},
		},
	}
}
