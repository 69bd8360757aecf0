package kilo

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/opencode"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// The pane states ag-keys reads by name.
const (
	panePlan      = "plan"
	paneOwnAnswer = "own-answer"
	paneShell     = "shell"
)

// PaneRules: Kilo 7.7.7's screens, captured in tmux (testdata/screens),
// are OpenCode's (opencode.PaneRules) with these differences:
//
//	plan        the plan agent's "Ready to implement?" after plan_exit:
//	            "1. Start new session", "2. Continue here", "3. Keep
//	            refining", "4. Type your own answer" over the question
//	            footer. The plugin hears nothing of it (the session stays
//	            busy): the screen is its only sign.
//	permission  "# <the call's description>" over "$ <command>": the
//	            "$" line says bash.
//	reject-reason  after Escape on any permission, with what is typed
//	            on the footer's line ("<text>  enter confirm  esc cancel").
//	question    its rows ("1. Blue", …, "3. Type your own answer") for
//	            ag-keys, which picks one by digit; the cursor is only a
//	            colour, and no row's key depends on it.
//	own-answer  the last row's input, holding what was typed.
//	working     "esc interrupt", and "esc again to interrupt" after one
//	            Escape.
//	shell       the composer after a leading "!" ("esc exit shell mode").
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	interrupt := re(`\besc (?:again to )?interrupt\b`)
	row := re(`^\S?\s*┃?\s*\d\.\s+(.*?)\s*$`)
	reject := opencode.RejectReasonState()
	// What is typed there, and nothing below it.
	reject.Text = &panes.Text{From: re(`^\S?\s*┃?\s*(.*?)\s*enter confirm\s+esc cancel\s*$`), Within: 1, Lines: 1, Inline: true, Stop: re(`^`)}
	question := opencode.QuestionState()
	question.Rows = &panes.Rows{Row: row, Cursor: row, Target: re(`\d\.\s+Type your own answer\s*$`), Within: 30}
	working, idle := opencode.WorkingState(), opencode.IdleState()
	working.Anchor, working.Needs = interrupt, []string{"interrupt"}
	idle.None = []panes.Near{{Re: interrupt, From: 0, To: 0}}
	return panes.Rules{
		Lines: 40,
		States: []panes.State{
			{
				Name: panePlan, Kind: panes.Wait, Attention: event.AttnPlan, Tool: "plan_exit",
				Needs:  []string{"ready to implement?"},
				Anchor: re(`\besc dismiss\b`),
				// The rows the plan keys name, where they were seen.
				All: []panes.Near{
					{Re: re(`^\S?\s*┃?\s*Ready to implement\?\s*$`), From: -16, To: -1},
					{Re: re(`^\S?\s*┃?\s*2\.\s+Continue here\s*$`), From: -12, To: -1},
					{Re: re(`^\S?\s*┃?\s*4\.\s+Type your own answer\s*$`), From: -4, To: -1},
				},
				Bottom: 2,
			},
			opencode.PermissionState(panes.ToolLine{Re: re(`^\s*┃?\s*\$\s`), Tool: "bash", Within: 12}),
			reject,
			question,
			{
				Name: paneOwnAnswer, Kind: panes.Wait, Attention: event.AttnQuestion,
				Aside:  true, // KeyMap.Input's
				Needs:  []string{"type your own answer"},
				Anchor: re(`\besc dismiss\b`),
				All:    []panes.Near{{Re: re(`\d\.\s+Type your own answer\s*$`), From: -6, To: -1}},
				Bottom: 2,
				Text: &panes.Text{From: re(`\d\.\s+Type your own answer\s*$`), Within: 6, Lines: 1,
					Skip: re(`^\s*┃?\s*$`), Stop: re(`esc dismiss`), Cut: re(`^\s*┃?\s*`)},
			},
			working,
			idle,
			{
				// "!" at the composer: what is typed runs as a shell
				// command (KeyMap.NoReply).
				Name: paneShell, Kind: panes.Idle,
				Needs:  []string{"exit shell mode"},
				Anchor: re(`\besc exit shell mode\s*$`),
				Bottom: 1,
			},
		},
	}
}
