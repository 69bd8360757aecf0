package omp

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// PaneRules: omp 18.2.3's approval dialog, captured in tmux
// (testdata/screens): a box titled "Allow tool: <name>", the call
// ("Command: <cmd>"), "❯ Approve" / "Deny", and "up/down navigate  enter
// select  esc cancel". ag-keys looks at it before it types; the extension
// reports the wait itself.
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	return panes.Rules{
		Lines: 40,
		States: []panes.State{{
			Name: "approval", Kind: panes.Wait, Attention: event.AttnPermission,
			Needs:  []string{"allow tool:"},
			Anchor: re(`up/down navigate\s+enter select\s+esc cancel`),
			All:    []panes.Near{{Re: re(`^\s*│?\s*❯?\s*Approve\b`), From: -6, To: -1}, {Re: re(`Allow tool:`), From: -12, To: -1}},
			Bottom: 3,
			Tools:  []panes.ToolLine{{Re: re(`Allow tool:\s*([A-Za-z0-9_.:-]+)`), Within: 12}},
			Text: &panes.Text{From: re(`Allow tool:`), Within: 12, Lines: 1,
				Skip: re(`^\s*│?\s*│?\s*$`), Stop: re(`Approve`), Cut: re(`^\s*│?\s*(?:Command:\s*)?`)},
		}},
	}
}
