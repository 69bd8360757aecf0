package gemini

import (
	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Keyed     = (*Provider)(nil)
	_ provider.Commanded = (*Provider)(nil)
)

// Keys is how to answer Gemini CLI from its pane (verified by ccmux on
// 0.29.5 and here on 0.61.0 in make e2e):
//
//   - permission box ("Allow execution of [Shell]?", "● 1. Allow once",
//     "2. Allow for this session", "3. No, suggest changes (esc)"): digits
//     select and submit, so "1" allows once; Escape is option 3: the tool
//     does not run, "Request cancelled." and the turn ends at the composer.
//   - no reply on a permission: Escape cancels the turn, it opens no
//     composer with the tool pending.
//   - reply when finished: straight into the composer. Gemini trims
//     leading white space before it looks for "/" (a slash command) and
//     "!" (shell mode), so no defuse works and such text is refused.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:         []string{"1"},
		Deny:            []string{"Escape"},
		FinishedPrelude: []string{},
		UnsafeReply:     provider.LeadingCommand,
	}
}

// Commands are Gemini CLI's command lines (`gemini --help`, 0.61.0):
// -i/--prompt-interactive submits a prompt and stays interactive (-p is
// headless, one turn); --resume takes the session id /quit prints ("To
// resume this session: gemini --resume <uuid>"); -m names the model and
// goes last on a resume. No fork: nothing gives a resumed chat a new id.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "gemini",
		Resume:    "{bin} --resume '{id}'",
		Spawn:     "{bin} -i '{prompt}'",
		ModelFlag: "-m",
	}
}
