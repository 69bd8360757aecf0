package cline

import (
	"regexp"

	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Keyed = (*Provider)(nil)

// Keys is how to answer Cline from its pane, verified on 3.0.65 in tmux
// against a fake model (t/e2e):
//
//   - approval dialog ("[y] Approve   [n] Deny"): y approves, n denies
//     (Escape denies too); the call's result then says "rejected by the
//     user" and the model goes on. It takes no feedback. Plan mode's
//     switch_to_act_mode is the same dialog: y carries out the plan, n
//     stays in plan mode.
//   - question (ask_question): Down moves the cursor, Enter picks the
//     option under it; the last row, "Type a response...", takes typed
//     text, digits too — while the cursor is elsewhere a digit picks that
//     option and letters jump to the last row. An answer that is an
//     option's label goes by Down or Up and Enter; other text goes to
//     the last row by Down, then its Enter once the row shows it. Escape
//     dismisses the question ("[User dismissed the question]") and the
//     model goes on.
//   - reply when finished: "!" is plain text to Cline; a "/" word
//     anywhere opens its command menu, whose Enter runs the command and
//     drops the text (" /help" and "see /help" ran /help): refused.
//   - a notice over the composer on the first starts takes the next key.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:         []string{"y"},
		Deny:            []string{"n"},
		PlanApprove:     []string{"y"},
		PlanDeny:        []string{"n"},
		AnswerRow:       provider.RowsByDown,
		AnswerPrelude:   []string{},
		Input:           []string{paneAnswer},
		FinishedPrelude: []string{},
		NoReply: map[string]string{
			panePromo: "a Cline notice is up: the next key closes it",
			paneHelp:  "Cline's help is up, and the keys typed after it closes are lost",
		},
		UnsafeReply: unsafeReply,
	}
}

var slashWord = regexp.MustCompile(`(?:^|\s)/\S`)

func unsafeReply(text string) string {
	if slashWord.MatchString(text) {
		return "a / word opens Cline's command menu, and Enter would run the command instead"
	}
	return ""
}
