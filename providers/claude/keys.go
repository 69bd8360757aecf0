package claude

import (
	"strings"
	"time"

	"github.com/agwatch/ag/providers/provider"
)

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
//     "plan-exit") approves with "1". A wait the hooks reported as a
//     permission (the permission_prompt Notification cannot tell) is
//     taken for a plan, and "2" typed, only when the pane shows the plan
//     picker's own rows and its plan file's footer (PlanProof): text the
//     model wrote can make a permission prompt look like a plan, and
//     there "2" is "don't ask again", a lasting allow rule.
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
//   - 2.1.332: the permission prompt adds "3. Yes, and switch to auto
//     mode" (1 still allows once, Escape still denies); auto mode's own
//     prompt ("❯ No" / "Yes", no digits) and its hold ("Enter to stay in
//     auto mode · shift+Tab to leave … · Esc to cancel") have keys of
//     their own (Screens); a dialog drops the keys it gets in its first
//     ~0.1–0.15 s on screen (Grace).
//
// Claude's composer reads a leading "!" as bash mode, but decides that
// before trimming: a reply starting with "!" is typed with one space in
// front, and Claude sends it to the model as a message with the space
// trimmed (the e2e TestClaudeReplyDefused; the seeds record the opposite
// for Codex's "!", OpenCode's "!", Pi, omp, Gemini, agy and Copilot, which
// are refused instead). A leading "/" was defused the same way up to
// 2.1.197; 2.1.332 trims first and runs " /cost" as the slash command, so
// a reply starting with "/" (after any white space) is refused.
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
		UnsafeReply:       slashCommand,
		PlanProof:         []string{"plan"},
		Screens: map[string]provider.ScreenKeys{
			"plan-exit": {Approve: []string{"1"}, Deny: []string{"Escape"}},
			// Auto mode's own prompt (2.1.332) opens on "❯ No" and takes
			// no digit: Down to "Yes", Enter. A Down lost on the way
			// leaves Enter on "No": a refusal, never a wrong approval.
			"permission-no": {Approve: []string{"Down", "Enter"}, Deny: []string{"Escape"}},
			// Auto mode's hold: Enter stays in auto mode and brings the
			// action's own prompt (a new wait); Escape cancels the action.
			"auto-hold": {Approve: []string{"Enter"}, Deny: []string{"Escape"}},
		},
		Unchecked: []string{"auto-hold"},
		Grace:     250 * time.Millisecond,
	}
}

// slashCommand refuses a reply Claude Code 2.1.332 would run as a slash
// command, white space in front or not.
func slashCommand(text string) string {
	if strings.HasPrefix(strings.TrimLeft(text, " \t\r\n\v\f\u00a0\u3000"), "/") {
		return "a reply starting with / runs as a slash command"
	}
	return ""
}
