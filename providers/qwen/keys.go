package qwen

import "github.com/agwatch/ag/providers/provider"

var _ provider.Keyed = (*Provider)(nil)

// Pane state names the key map refers to.
const (
	paneIdle   = "idle"
	paneDraft  = "draft"
	paneAnswer = "answer"
)

// Keys is how to answer Qwen Code from its pane (0.24.4 in tmux against
// the fake model, make e2e):
//
//   - permission ("Allow execution of: 'echo'?", "› 1. Yes, allow once",
//     … "No, suggest changes (esc)"; in the default auto mode, when its
//     classifier cannot decide, "2. Switch to Default Mode and allow
//     once"): digits select and submit, so "1" allows once; Escape is
//     "No": the tool does not run and the turn ends at the composer (the
//     hooks say only idle_prompt).
//   - question (ask_user_question: the header, the question, "❯ 1. Blue"
//     … "3. Type something..."): a digit picks its option at once; the
//     last row's digit moves to it and the row takes typed text, which
//     Enter submits as the answer. Escape dismisses the question.
//   - plan (exit_plan_mode, "Would you like to proceed?"): "3" is "Yes,
//     and manually approve edits" (edits still asked about); never "1"
//     ("restore previous mode", which may be auto or yolo) nor "2"
//     (auto-accept edits). Escape is "No, keep planning".
//   - reply on a permission or plan: Escape first (the turn ends), then
//     the text as the next message. Reply when finished: straight in; the
//     composer may show a follow-up suggestion in grey, which typing
//     replaces (Enter alone would accept it).
//   - Qwen forked Gemini CLI's composer: a first "/" is a slash command,
//     a first "!" shell mode, read after leading white space is trimmed,
//     so such replies are refused as Gemini's are.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:           []string{"1"},
		Deny:              []string{"Escape"},
		PlanApprove:       []string{"3"},
		PlanDeny:          []string{"Escape"},
		AnswerPrelude:     []string{"Escape"},
		AnswerRow:         provider.RowsByDigit,
		PermissionPrelude: []string{"Escape"},
		PlanPrelude:       []string{"Escape"},
		FinishedPrelude:   []string{},
		UnsafeReply:       provider.LeadingCommand,
		Input:             []string{paneAnswer},
		Unsent:            []string{paneDraft},
	}
}
