package auggie

import (
	"strings"

	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Keyed     = (*Provider)(nil)
	_ provider.Commanded = (*Provider)(nil)
)

// Keys is how to answer Auggie from its pane, verified on Auggie 0.36.0
// in tmux:
//
//   - approval dialog ("Tool Approval Required", "[A]llow [D]eny"): "a"
//     allows the call, "d" denies it (× Tool Permission Denied; the
//     refusal goes to the model and the turn goes on). Escape does
//     nothing there, so it is no deny and no way to a composer: no reply
//     on a permission wait.
//   - reply when finished: straight into the composer. Auggie reads a
//     leading "/" as a slash command (and its menu takes the first Enter)
//     unless a space comes first, which it keeps: the space defuses it.
//     "!" went to the model as text, but Augment's service can switch on
//     a shell mode for "!" (its cliEnableBashMode flag), so such text is
//     refused rather than risked.
//
// Auggie has no question tool and no plan mode.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:         []string{"a"},
		Deny:            []string{"d"},
		FinishedPrelude: []string{},
		DefuseLeading:   " ",
		UnsafeReply:     unsafeReply,
	}
}

func unsafeReply(text string) string {
	if strings.HasPrefix(strings.TrimLeft(text, " \t\r\n\v\f\u00a0\u3000"), "!") {
		return "a reply starting with ! may run as a shell command in Auggie"
	}
	return ""
}

// Commands are Auggie's command lines (auggie --help, 0.36.0): a
// positional instruction starts an interactive session with it submitted
// (-p/--print would run it and exit); --resume <id> reopens a session (the
// line Auggie prints at /exit is `auggie session resume <id>`, the same).
// No fork: nothing starts a new session from another's history.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "auggie",
		Resume:    "{bin} --resume '{id}'",
		Spawn:     "{bin} '{prompt}'",
		ModelFlag: "--model",
	}
}
