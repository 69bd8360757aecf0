package crush

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// PaneRules are Crush's permission dialog as its source draws it
// (internal/ui/dialog/permissions.go; no Crush ran here, so the fixtures
// in testdata/screens are drawn by hand from that code, not captured): a
// box drawn over the middle of the screen, chat text left and right of
// it —
//
//	Permission Required ╱╱╱╱╱╱╱╱
//	Tool bash
//	Path ~/proj
//	Desc <what the call is for>
//	<the command, in a panel>
//	  Allow    Allow for Session    Deny      (stacked when narrow)
//	←/→ choose  enter confirm  esc …
//
// The hook (PreToolUse) fires before the permission check, for every
// call: the dialog on screen is the only sign of the wait. Crush's
// composer and working screens are not known well enough to read: the
// store says when a turn ends.
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	edge := `(?:^|│)\s*`
	end := `\s*(?:│.*)?$`
	return panes.Rules{Lines: 60, States: []panes.State{{
		Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
		Needs:  []string{"permission required", "allow for session"},
		Anchor: re(edge + `(?:Allow\s{2,}Allow for Session\s{2,})?Deny` + end),
		All: []panes.Near{
			{Re: re(`Allow for Session`), From: -2, To: 0},
			{Re: re(edge + `Permission Required\b`), From: -50, To: -2},
		},
		Tools: []panes.ToolLine{{Re: re(edge + `Tool\s+(\S+)` + end), Within: 50}},
		// A bash call's command, the first line of its panel under Desc.
		Text: &panes.Text{From: re(edge + `Desc\s`), Within: 50, Lines: 1,
			Skip: re(`^\s*│?\s*│?\s*$`), Stop: re(`Allow for Session|^\s*│?\s*Allow\s*│?\s*$`),
			Cut: re(`^│\s*`), CutEnd: re(`\s*│`)},
	}}}
}
