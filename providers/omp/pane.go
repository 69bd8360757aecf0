package omp

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// The pane states ag-keys reads before it answers an ask picker.
const (
	paneAsk    = "ask"           // the picker of one question, one answer
	paneCustom = "custom-answer" // its own answer's input, text typed in
)

// PaneRules: omp 18.2.3's screens, captured in tmux (testdata/screens).
// The approval dialog: a box titled "Allow tool: <name>", the call
// ("Command: <cmd>"), "❯ Approve" / "Deny", and "up/down navigate  enter
// select  esc cancel". The ask tool's picker: the question, its options
// ("❯ ○ Blue", "  ○ Green"), then "○ Other (type your own)", and "Enter
// select · n note · ↑/↓ move · Esc cancel"; a question that takes several
// answers shows "☐" rows and "Space toggle · Enter next" instead, and is
// not read. Enter on "Other" opens "Custom answer: <question>" with a
// "> " input, where Enter submits. ag-keys looks at them before it types;
// the extension reports the waits themselves.
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	return panes.Rules{
		Lines: 40,
		States: []panes.State{{
			Name: paneAsk, Kind: panes.Wait, Attention: event.AttnQuestion, Tool: "ask",
			Needs:  []string{"other (type your own)"},
			Anchor: re(`^\s*Enter select · n note · ↑/↓ move\b`),
			All:    []panes.Near{{Re: re(`^\s*❯?\s*○ Other \(type your own\)\s*$`), From: -30, To: -1}},
			Bottom: 2,
			// Several questions: a tab bar whose last tab is "Submit".
			Rows: &panes.Rows{Row: re(`^\s*(?:❯\s*)?[○◉]\s+(.*?)\s*$`), Cursor: re(`^\s*❯`), Target: re(`○ Other \(type your own\)\s*$`),
				Tabs: re(`^\s*[^\s○◉☐❯].*\s{2,}Submit\s*$`), Within: 30},
			Text: &panes.Text{From: re(`^\s*╭─ Ask\b`), Within: 30, Lines: 1,
				Skip: re(`^\s*(?:$|[─├┤]+$|\S+(?:\s{2,}\S+)*\s{2,}Submit$)`), Stop: re(`^\s*(?:❯\s*)?[○◉]\s`)},
		}, {
			Name: paneCustom, Kind: panes.Wait, Attention: event.AttnQuestion, Tool: "ask",
			Aside:  true, // KeyMap.Input's
			Needs:  []string{"custom answer:"},
			Anchor: re(`^\s*enter or ctrl\+q submit\s+esc cancel\b`),
			All:    []panes.Near{{Re: re(`^\s*╭─ Custom answer:`), From: -8, To: -1}},
			Bottom: 2,
			Text: &panes.Text{From: re(`^\s*>(?:\s(.*))?$`), Within: 6, Lines: 1, Inline: true,
				Stop: re(`^\s*enter or ctrl\+q submit\b`)},
		}, {
			Name: "approval", Kind: panes.Wait, Attention: event.AttnPermission,
			Needs:  []string{"allow tool:"},
			Anchor: re(`up/down navigate\s+enter select\b`), // "esc cancel" wraps in 40 columns
			All:    []panes.Near{{Re: re(`^\s*│?\s*❯?\s*Approve\b`), From: -6, To: -1}, {Re: re(`Allow tool:`), From: -12, To: -1}},
			Bottom: 3,
			Tools:  []panes.ToolLine{{Re: re(`Allow tool:\s*([A-Za-z0-9_.:-]+)`), Within: 12}},
			Text: &panes.Text{From: re(`Allow tool:`), Within: 12, Lines: 1,
				Skip: re(`^\s*│?\s*│?\s*$`), Stop: re(`Approve`), Cut: re(`^\s*│?\s*(?:Command:\s*)?`)},
		}},
	}
}
