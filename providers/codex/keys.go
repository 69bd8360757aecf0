package codex

import (
	"strings"

	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Keyed     = (*Provider)(nil)
	_ provider.Commanded = (*Provider)(nil)
)

// Keys is how to answer Codex from its pane (verified on codex-cli 0.144.5
// by ccmux and on 0.171.0 here):
//
//   - permission prompt: "› 1. Yes, proceed (y)" is highlighted, so Enter
//     approves once ("y" does too); Escape picks "3. No, and tell Codex
//     what to do differently (esc)": the tool does not run and the turn is
//     interrupted ("■ Conversation interrupted"), the session lives on.
//   - no reply on a permission: Escape interrupts rather than opening a
//     feedback composer, so a deny-with-feedback cannot be typed.
//   - question (request_user_input, Plan mode, 0.171.0): a digit picks
//     its row and answers at once (on a form, the next question comes);
//     an own answer goes Down to "None of the above", Tab opens its notes,
//     the text, Enter ("answer: None of the above", "note: <text>").
//     Escape interrupts the turn.
//   - plan (Plan mode's "Implement this plan?", 0.171.0): a digit picks
//     its row at once. 1 implements it (Default mode, "Implement the
//     plan." sent); 3 stays in Plan mode, the composer ready for what to
//     change (Escape does the same); 2 would clear the context: never
//     typed.
//   - reply when finished: straight into the idle composer. A leading "/"
//     is a slash command and one space in front defuses it; a leading "!"
//     is shell mode even after spaces (Codex keys it on the first
//     non-blank character) and Enter would run the text as a command with
//     no approval, so such text is refused.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:         []string{"Enter"},
		Deny:            []string{"Escape"},
		PlanApprove:     []string{"1"},
		PlanDeny:        []string{"3"},
		PlanPrelude:     []string{"3"},
		AnswerRow:       provider.RowsByDown,
		AnswerPrelude:   []string{"Tab"},
		Input:           []string{paneNotes, paneDraft},
		FinishedPrelude: []string{},
		DefuseLeading:   " ",
		UnsafeReply:     unsafeReply,
	}
}

func unsafeReply(text string) string {
	if strings.HasPrefix(strings.TrimLeft(text, " \t\r\n\v\f\u00a0\u3000"), "!") {
		return "a reply starting with ! runs as a shell command in Codex"
	}
	return ""
}

// Commands are Codex's command lines: `codex [OPTIONS] [PROMPT]` starts an
// interactive session with the prompt submitted (`codex exec` would run
// one turn and exit). The prompt goes after "--": verified on 0.171.0,
// `codex '-v is broken'` exits with "unexpected argument '-v' found", and a
// prompt that is exactly a subcommand name ("review", "resume") would run
// that command. `codex resume <id>` reopens a thread and takes -m last. No
// fork: resume reopens the same thread id, and none was verified.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "codex",
		Resume:    "{bin} resume '{id}'",
		Spawn:     "{bin} -- '{prompt}'",
		ModelFlag: "-m",
	}
}
