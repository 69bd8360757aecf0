package cursor

import (
	"regexp"

	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Keyed     = (*Provider)(nil)
	_ provider.Commanded = (*Provider)(nil)
)

// Keys is how to answer Cursor from its pane (the seeds: verified on
// cursor-agent 2026.07.01 and 2026.07.16; cursor-agent is not on npm, so
// not re-verified here):
//
//   - "Run this command?" is a list: "→ Run (once) (y)", "Add Shell(<cmd>)
//     to allowlist? (tab)", "Run Everything (shift+tab)", "Skip (esc or
//     n)". "y" is the absolute Run (once) selector; Enter would pick
//     whatever row is highlighted. Deny is C-c: it interrupts the turn and
//     the command does not run. Never Escape (or n): both open a "Reason
//     for rejection" text field, and Escape then Enter can coalesce or
//     land on the list, selecting Run (once): a deny that approves.
//   - no reply on a prompt (that text field cannot be driven safely), and
//     Cursor asks no questions.
//   - reply when finished: at the composer. "!" is no trigger, but the
//     slash autocomplete is positional: a "/token" at the start or after
//     a space opens a popup that swallows Enter and runs its pick, so such
//     text is refused ("run /help" included; a path like src/main.ts is
//     fine).
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:         []string{"y"},
		Deny:            []string{"C-c"},
		FinishedPrelude: []string{},
		UnsafeReply:     unsafeReply,
	}
}

var slashToken = regexp.MustCompile(`(?:^|\s)/\S`)

func unsafeReply(text string) string {
	if slashToken.MatchString(text) {
		return "a /word at the start or after a space opens Cursor's command popup, which takes the Enter"
	}
	return ""
}

// Commands are Cursor's command lines: `cursor-agent '<prompt>'` starts an
// interactive chat with the prompt submitted (-p would print and exit);
// `cursor-agent --resume <id>` reopens a chat, from its workspace (the
// pane's shell keeps the cwd). No fork: --resume reopens the same chat.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "cursor-agent",
		Resume:    "{bin} --resume '{id}'",
		Spawn:     "{bin} '{prompt}'",
		ModelFlag: "--model",
	}
}
