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
//   - no plan approval and no question picker ag can answer by keys.
//   - reply when finished: straight into the idle composer. A leading "/"
//     is a slash command and one space in front defuses it; a leading "!"
//     is shell mode even after spaces (Codex keys it on the first
//     non-blank character) and Enter would run the text as a command with
//     no approval, so such text is refused.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:         []string{"Enter"},
		Deny:            []string{"Escape"},
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
