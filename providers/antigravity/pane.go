package antigravity

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// PaneRules: agy's hooks report no permission prompt, so the pane raises
// the wait. The texts are the ones ccmux keyed on and verified (agy
// 1.1.1): the prompt says "Requesting permission for: <command>" and "Do
// you want to proceed?" above a numbered list; the turn at work shows "esc
// to cancel"; the composer's footer starts "? for shortcuts". Nothing else
// is a wait — never the CSAT survey ("How's the CLI experience so far?"),
// nor the workspace trust question.
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	proceed := re(`(?i)^\s*Do you want to proceed\?\s*$`)
	return panes.Rules{
		Lines: 40,
		States: []panes.State{
			{
				Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission, Tool: "run_command",
				Needs:  []string{"do you want to proceed?"},
				Anchor: proceed,
				All: []panes.Near{
					{Re: re(`(?i)Requesting permission for:`), From: -12, To: -1},
					{Re: re(`^\s*(?:[❯›>●]\s*)?1\.\s+\S`), From: 1, To: 4},
				},
				None:   []panes.Near{{Re: re(`(?i)how's the cli experience`), From: -12, To: 12}},
				Bottom: 10,
				Text: &panes.Text{From: re(`(?i)Requesting permission for:\s*(.*)$`), Inline: true, Within: 12, Lines: 3,
					Stop: proceed},
			},
			{
				Name: "working", Kind: panes.Busy,
				Anchor: re(`(?i)\besc to cancel\b`),
				None:   []panes.Near{{Re: proceed, From: -12, To: 0}},
				Bottom: 6,
			},
			{
				Name: "idle", Kind: panes.Idle,
				Anchor: re(`^\s*\? for shortcuts\b`),
				None:   []panes.Near{{Re: re(`(?i)\besc to cancel\b`), From: -6, To: 0}},
				Bottom: 2,
			},
		},
	}
}
