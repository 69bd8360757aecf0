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
//	               "enter <verb>" (ccmux's rule for 1.18.15/19), its rows
//	               "1. a.go" … "3. Type your own answer" (1.18.33)
//	question-own   the same with the own answer's input open under its
//	               row (a digit there is text)
//	working        "⬝⬝⬝⬝⬝⬝⬝⬝  esc interrupt" on the status line
//	idle           the status line's "ctrl+p commands" without "esc
//	               interrupt"
//
// A fork that kept the TUI (Kilo) builds its rules from the same states.
func (*Provider) PaneRules() panes.Rules {
	return panes.Rules{
		Lines: 40,
		States: []panes.State{
			PermissionState(panes.ToolLine{Re: regexp.MustCompile(`#\s*Shell command`), Tool: "bash", Within: 12}),
			RejectReasonState(),
			questionOwnState(), // before the picker's: the same footer
			questionState(),
			WorkingState(),
			IdleState(),
		},
	}
}

// PermissionState is the permission dialog; tools name the tool from the
// lines above its buttons.
func PermissionState(tools ...panes.ToolLine) panes.State {
	re := regexp.MustCompile
	return panes.State{
		Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
		Needs:  []string{"allow once"},
		Anchor: re(`^\s*┃?\s*Allow once\s+Allow always\s+Reject\b`),
		All:    []panes.Near{{Re: re(`△ Permission required`), From: -12, To: -1}},
		// Under 100 columns or so the footer ("ctrl+f fullscreen
		// ⇆ select enter confirm") wraps below the buttons.
		Bottom: 4,
		Tools:  tools,
		Text: &panes.Text{From: re(`△ Permission required`), Within: 12, Lines: 1,
			Skip: re(`^\s*┃?\s*(?:#.*)?$`), Stop: re(`Allow once`), Cut: re(`^\s*┃?\s*\$\s+`)},
	}
}

// RejectReasonState is the dialog that asks what to do instead before a
// rejection ("△ Reject permission", "enter confirm  esc cancel").
func RejectReasonState() panes.State {
	re := regexp.MustCompile
	return panes.State{
		Name: PaneRejectReason, Kind: panes.Wait, Attention: event.AttnPermission,
		Needs:  []string{"reject permission"},
		Anchor: re(`enter confirm\s+esc cancel\s*$`),
		All:    []panes.Near{{Re: re(`△ Reject permission`), From: -8, To: -1}},
		Bottom: 2,
	}
}

// QuestionState is the question picker, by its footer.
func QuestionState() panes.State {
	re := regexp.MustCompile
	return panes.State{
		Name: "question", Kind: panes.Wait, Attention: event.AttnQuestion,
		Needs:  []string{"esc dismiss"},
		Anchor: re(`(?i)\besc dismiss\b`),
		All:    []panes.Near{{Re: re(`(?i)\benter\s+\w`), From: 0, To: 0}},
		Bottom: 2,
	}
}

// WorkingState is the status line at work.
func WorkingState() panes.State {
	return panes.State{
		Name: "working", Kind: panes.Busy,
		Needs:  []string{"esc interrupt"},
		Anchor: regexp.MustCompile(`\besc interrupt\b`),
		Bottom: 1,
	}
}

// IdleState is the status line at rest.
func IdleState() panes.State {
	re := regexp.MustCompile
	return panes.State{
		Name: "idle", Kind: panes.Idle,
		Needs:  []string{"ctrl+p commands"},
		Anchor: re(`\bctrl\+p commands\b`),
		None:   []panes.Near{{Re: re(`\besc interrupt\b`), From: 0, To: 0}},
		Bottom: 3,
	}
}

// PaneRejectReason is the dialog Escape opens on a sub-agent's permission:
// "Reject permission — Tell OpenCode what to do differently".
const PaneRejectReason = "reject-reason"

// The question picker's last row, the own answer ("[ ]" before it in a
// multi-select); a wide pane's sidebar can share its line.
var ownAnswer = regexp.MustCompile(`^\s*┃?\s*\d+\.\s+(?:\[.\]\s+)?Type your own answer(?:\s{3,}\S.*)?$`)

// paneQuestionOwn is the question picker with its own answer's input open.
const paneQuestionOwn = "question-own"

// questionState is QuestionState with OpenCode 1.18.33's rows read: "1.
// a.go" (a description under each), "N. Type your own answer" last; a
// multi-select's "[ ]" rows are no rows. The cursor is drawn in colour
// alone; several questions have a row of their headers ending "Confirm".
// A wide pane's sidebar can share a row's line.
func questionState() panes.State {
	re := regexp.MustCompile
	q := QuestionState()
	q.Tool = "question"
	q.Rows = &panes.Rows{Row: re(`^\s*┃?\s*\d+\.\s+([^\[\s].*?)(?:\s{3,}\S.*)?$`), Target: ownAnswer,
		Tabs: re(`^\s*┃?\s+\S.*\s{2,}Confirm(?:\s{3,}\S.*)?$`), Within: 30}
	return q
}

// questionOwnState is the picker with its own answer being typed: the text
// under "N. Type your own answer", where a digit would go in as text.
func questionOwnState() panes.State {
	q := QuestionState()
	q.Name, q.Tool = paneQuestionOwn, "question"
	q.All = append(q.All, panes.Near{Re: ownAnswer, From: -9, To: -3})
	q.None = []panes.Near{{Re: ownAnswer, From: -2, To: -2}}
	return q
}
