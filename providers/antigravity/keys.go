package antigravity

import "github.com/agwatch/ag/providers/provider"

var (
	_ provider.Keyed     = (*Provider)(nil)
	_ provider.Commanded = (*Provider)(nil)
)

// Keys is how to answer agy from its pane (verified by ccmux on agy 1.1.1
// and 1.1.4; agy is not on npm, so not re-verified here):
//
//   - permission prompt ("Requesting permission for: <cmd>", "Do you want
//     to proceed?", a numbered list): digits select and submit, "1" is
//     "Yes" and runs the command. Deny is Escape, never a digit: the list
//     is dynamic (4 options on one prompt, 6 on the next, with "No" moving
//     from 4), and Escape cancels: the tool does not run, the turn stops
//     at the composer ("Interrupted · What should Antigravity CLI do
//     instead?").
//   - no reply on a permission (Escape interrupts the turn).
//   - reply when finished: straight in; agy trims leading white space and
//     reads "/" as a command and "!" as shell mode, so such text is refused.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:         []string{"1"},
		Deny:            []string{"Escape"},
		FinishedPrelude: []string{},
		UnsafeReply:     provider.LeadingCommand,
	}
}

// Commands are agy's command lines (ccmux's table from agy --help):
// -i/--prompt-interactive runs a first prompt and stays (--prompt is an
// alias of --print, one-shot); --conversation=<id> resumes; --model picks
// the model.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "agy",
		Resume:    "{bin} --conversation='{id}'",
		Spawn:     "{bin} -i '{prompt}'",
		ModelFlag: "--model",
	}
}
