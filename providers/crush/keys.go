package crush

import "github.com/agwatch/ag/providers/provider"

var (
	_ provider.Keyed     = (*Provider)(nil)
	_ provider.Commanded = (*Provider)(nil)
)

// Keys is how to answer Crush from its pane, read from its source (the
// permission dialog's key map; not verified on a running Crush):
//
//   - permission dialog ("Permission Required", buttons "Allow", "Allow
//     for Session", "Deny"): "a" allows once, "s" for the session (never
//     pressed), "d" denies ("User denied permission": the tool does not
//     run and the turn stops). Escape denies too; Enter confirms the
//     highlighted button, which arrows and Tab move, so it is never used.
//   - reply when finished: straight into the composer. "/" opens the
//     command list and the composer has a shell mode ("Run a shell
//     command"), so text starting with "/" or "!" is refused.
//
// Crush's question form ("N questions need your input") has no keys
// here: its screen is not known.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:         []string{"a"},
		Deny:            []string{"d"},
		FinishedPrelude: []string{},
		UnsafeReply:     provider.LeadingCommand,
	}
}

// Commands are Crush's command lines (its root command's flags): `crush
// --session <id>` continues a session. Crush has no interactive start with
// a prompt (`crush run` answers one and exits) and no model flag on the
// TUI, and nothing forks a session.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:    "crush",
		Resume: "{bin} --session '{id}'",
	}
}
