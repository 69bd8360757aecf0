package droid

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/droid/droidhook"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// Pane state names the key map refers to.
const (
	paneIdle         = "idle"
	paneDraft        = "draft"
	paneAnswer       = "answer"
	panePlanAutonomy = "plan-autonomy"
)

// PaneRules are Factory Droid's screens (a box's edges "│" are gone by
// the time the rules read a line), from captures of 0.225.2 in tmux
// (testdata/screens). The hooks report a prompt at once; the pane says
// when it was answered.
//
//	permission  "Command to approve · low risk", "↳ <command>", "Why this
//	            needs approval: …", a box of rows "Yes, allow", (sometimes)
//	            "Yes, and always allow low impact commands (…)", "No,
//	            cancel" — the selected one marked only by bold and colour —
//	            and "↑↓ navigate   Enter select   Esc cancel"
//	question    AskUser: the question, "1. Blue" … "Or type your own
//	            answer...", "↑/↓ Navigate • Space/Enter/1–9 Select • ESC stop
//	            agent"; typed text takes the last row's place, over "Enter
//	            Submit answer • ↑ back to options"
//	plan        ExitSpecMode: "Propose Specification \"<title>\"", the
//	            spec, "1. Proceed with the proposal" … "5. No and explain
//	            why", "↑↓ navigate   1-5 select   Enter select … Esc cancel";
//	            1 opens a second menu, "1. Proceed with Manual Approvals" …
//	working     "⣀ Thinking...  (Press ESC to stop)" over the composer,
//	            whose box says "> Enter to steer · Ctrl+Enter to queue"
//	idle        the composer box "> " (empty, or a grey `Try "…"` before
//	            the first prompt) over "? for help"
//	draft       the composer holding text
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	help := panes.Near{Re: re(`^\s*(?:\[⏱ [^\]]*\]\s*)?\? for help\b`), From: 2, To: 2}
	steer := re(`^\s*> Enter to steer · Ctrl\+Enter to queue\s*$`)
	empty := re(`^\s*>\s*(?:Try "[^"]*")?\s*$`)
	return panes.Rules{
		Lines: 40,
		States: []panes.State{
			{
				Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"enter select"},
				Anchor: re(`^\s*↑↓ navigate\s+Enter select\s+Esc cancel\b`),
				All: []panes.Near{
					{Re: re(`^\s*No, cancel\s*$`), From: -2, To: -2},
					{Re: re(`^\s*\S.* to approve\b`), From: -12, To: -4},
				},
				Bottom: 2,
				Tools: []panes.ToolLine{
					{Re: re(`^\s*Command to approve\b`), Tool: droidhook.ToolShell, Within: 12},
				},
				Text: &panes.Text{From: re(`^\s*↳\s+(.*\S)\s*$`), Up: true, Within: 12, Inline: true, Lines: 1},
			},
			{
				Name: "plan", Kind: panes.Wait, Attention: event.AttnPlan, Tool: droidhook.ToolExitSpec,
				Needs:  []string{"proceed with the proposal"},
				Anchor: re(`^\s*↑↓ navigate\s+1-\d select\s+Enter select\b.*Esc cancel\b`),
				All:    []panes.Near{{Re: re(`^\s*│?\s*1\. Proceed with the proposal\s*│?\s*$`), From: -8, To: -2}},
				Bottom: 2,
				Text: &panes.Text{From: re(`^\s*Propose Specification\b`), Within: 40, Lines: 8,
					Skip: re(`^\s*(?:─+)?\s*$`), Stop: re(`^\s*(?:Hooks |Will save to:)`)},
			},
			{
				// "1" on the spec opens a second menu, the autonomy to
				// proceed with ("Esc back" to the spec): still the plan's
				// wait, PlanApprove's second key is typed once it shows.
				Name: panePlanAutonomy, Kind: panes.Wait, Attention: event.AttnPlan, Tool: droidhook.ToolExitSpec,
				Needs:  []string{"proceed with manual approvals"},
				Anchor: re(`^\s*↑↓ navigate\s+1-\d select\s+Enter select\b.*Esc back\b`),
				All:    []panes.Near{{Re: re(`^\s*│?\s*1\. Proceed with Manual Approvals\s*│?\s*$`), From: -8, To: -2}},
				Bottom: 2,
			},
			{
				Name: paneAnswer, Kind: panes.Wait, Attention: event.AttnQuestion, Tool: droidhook.ToolQuestion,
				Aside:  true, // KeyMap.Input's
				Needs:  []string{"submit answer"},
				Anchor: re(`^\s*Enter Submit answer • ↑ back to options\b`),
				Bottom: 2,
				Text:   &panes.Text{From: re(`^\s*Enter Submit answer\b`), Up: true, Within: 3, Lines: 1},
			},
			{
				Name: "question", Kind: panes.Wait, Attention: event.AttnQuestion, Tool: droidhook.ToolQuestion,
				Needs:  []string{"space/enter/1–9 select", "submit answer"},
				Anchor: re(`^\s*(?:↑/↓ Navigate • Space/Enter/1–9 Select|Enter Submit answer • ↑ back to options)\b`),
				Bottom: 2,
				// The question over its options.
				Text: &panes.Text{From: re(`^\s*1\.\s`), Up: true, Within: 12, Lines: 1, Skip: re(`^\s*$`)},
				// Its options, then the own answer's row (no digit); no
				// row is marked but by colour: the first is taken as the
				// cursor's, which only digits and typed text rely on.
				Rows: &panes.Rows{Row: re(`^\s*(?:\d\.\s+)?(\S.*?)\s*$`), Cursor: re(`^\s*1\.\s`),
					Target: re(`Or type your own answer`), Within: 12},
			},
			{
				Name: "working", Kind: panes.Busy,
				Needs:  []string{"press esc to stop", "enter to steer"},
				Anchor: re(`\(Press ESC to stop\)|` + steer.String()),
				Bottom: 6,
			},
			{
				Name: paneIdle, Kind: panes.Idle,
				Needs:  []string{"? for help"},
				Anchor: empty,
				All:    []panes.Near{help},
				Bottom: 3,
			},
			{
				Name: paneDraft, Kind: panes.Idle,
				Needs:  []string{"? for help"},
				Anchor: re(`^\s*> \S`),
				All:    []panes.Near{help},
				None:   []panes.Near{{Re: steer, From: 0, To: 0}, {Re: empty, From: 0, To: 0}},
				Bottom: 3,
				Text:   &panes.Text{From: re(`^\s*> (.*?)\s*$`), Within: 1, Inline: true, Lines: 1},
			},
		},
	}
}
