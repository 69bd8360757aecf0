package cursor

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// PaneRules are Cursor's screens as the seeds describe cursor-agent
// 2026.07 (no capture of ours: it is not on npm). They are the only
// positive sign of its approval prompt, which no hook reports: the
// overlay confirms the 10 s estimate (then the keys are offered), the
// agent at work dismisses it.
//
//	permission  "Run this command?" (or "Allow this web fetch?"), the
//	            command, "→ Run (once) (y)", "Add Shell(<cmd>) to
//	            allowlist? (tab)", "Run Everything (shift+tab)", "Skip (esc
//	            or n)"
//	working     "ctrl+c to stop" under the composer
//
// No idle rule: without a capture of the idle composer, guessing one
// could end a real wait.
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	heading := re(`(?i)^\s*\S*\s*(?:run this command|allow this web fetch|delete this file|edit this file)\?\s*$`)
	return panes.Rules{
		Lines: 40,
		States: []panes.State{
			{
				Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"(esc or n)"},
				Anchor: re(`(?i)^\s*(?:→\s*)?Skip \(esc or n\)\s*$`),
				All:    []panes.Near{{Re: re(`(?i)^\s*(?:→\s*)?Run \(once\) \(y\)`), From: -6, To: -1}},
				Any:    []panes.Near{{Re: heading, From: -20, To: -1}},
				Bottom: 4,
				Tools: []panes.ToolLine{
					{Re: re(`(?i)run this command\?`), Tool: "Shell", Within: 20},
					{Re: re(`(?i)allow this web fetch\?`), Tool: "WebFetch", Within: 20},
					{Re: re(`(?i)(?:delete|edit) this file\?`), Tool: "Write", Within: 20},
				},
				Text: &panes.Text{From: heading, Within: 20, Lines: 1,
					Stop: re(`(?i)^\s*(?:→\s*)?Run \(once\)`), Cut: re(`^\$\s`)},
			},
			{
				Name: "working", Kind: panes.Busy,
				Needs:  []string{"ctrl+c to stop"},
				Anchor: re(`(?i)\bctrl\+c to stop\b`),
				Bottom: 4,
			},
		},
	}
}
