package opencode

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// PaneRules are OpenCode's screens, from captures of 1.18.33 in tmux
// (testdata/screens). The plugin reports every dialog it sees; the rules
// are for what it cannot (a dialog open before it loaded) and for ag-keys,
// which looks at the pane before it types. Every line of the dialog and
// the composer carries the "┃" border.
//
//	permission     "△ Permission required", "# Shell command", "$ <cmd>",
//	               "Allow once   Allow always   Reject … enter confirm"
//	reject-reason  a sub-agent's rejection: "△ Reject permission", "Tell
//	               OpenCode what to do differently", "enter confirm  esc
//	               cancel" (Enter rejects with no reason)
//	question       the question picker's footer, "esc dismiss" with
//	               "enter <verb>" (ccmux's rule for 1.18.15/19; it reads
//	               1.18.33's picker in make e2e)
//	working        "⬝⬝⬝⬝⬝⬝⬝⬝  esc interrupt" on the status line
//	idle           the status line's "ctrl+p commands" without "esc
//	               interrupt"
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	return panes.Rules{
		Lines: 40,
		States: []panes.State{
			{
				Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"allow once"},
				Anchor: re(`^\s*┃?\s*Allow once\s+Allow always\s+Reject\b`),
				All:    []panes.Near{{Re: re(`△ Permission required`), From: -12, To: -1}},
				// Under 100 columns or so the footer ("ctrl+f fullscreen
				// ⇆ select enter confirm") wraps below the buttons.
				Bottom: 4,
				Tools:  []panes.ToolLine{{Re: re(`#\s*Shell command`), Tool: "bash", Within: 12}},
				Text: &panes.Text{From: re(`△ Permission required`), Within: 12, Lines: 1,
					Skip: re(`^\s*┃?\s*(?:#.*)?$`), Stop: re(`Allow once`), Cut: re(`^\s*┃?\s*\$\s+`)},
			},
			{
				Name: paneRejectReason, Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"reject permission"},
				Anchor: re(`enter confirm\s+esc cancel\s*$`),
				All:    []panes.Near{{Re: re(`△ Reject permission`), From: -8, To: -1}},
				Bottom: 2,
			},
			{
				Name: "question", Kind: panes.Wait, Attention: event.AttnQuestion,
				Needs:  []string{"esc dismiss"},
				Anchor: re(`(?i)\besc dismiss\b`),
				All:    []panes.Near{{Re: re(`(?i)\benter\s+\w`), From: 0, To: 0}},
				Bottom: 2,
			},
			{
				Name: "working", Kind: panes.Busy,
				Needs:  []string{"esc interrupt"},
				Anchor: re(`\besc interrupt\b`),
				Bottom: 1,
			},
			{
				Name: "idle", Kind: panes.Idle,
				Needs:  []string{"ctrl+p commands"},
				Anchor: re(`\bctrl\+p commands\b`),
				None:   []panes.Near{{Re: re(`\besc interrupt\b`), From: 0, To: 0}},
				Bottom: 3,
			},
		},
	}
}

// paneRejectReason is the dialog Escape opens on a sub-agent's permission:
// "Reject permission — Tell OpenCode what to do differently".
const paneRejectReason = "reject-reason"
