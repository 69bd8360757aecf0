package codex

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

const (
	// toolQuestion is Codex's question tool, which the question's screen
	// names: the hook's PreToolUse names it too.
	toolQuestion = "request_user_input"
	// paneNotes is the question's notes field, open under its row.
	paneNotes = "question-notes"
	// paneDraft is the composer holding a draft.
	paneDraft = "draft"
)

// PaneRules are Codex's screens, written from captures of Codex 0.171.0 in
// tmux (testdata/screens). They matter more for Codex than for Claude: since
// 0.17x hooks run in the shared background server, so a hook event cannot
// say which pane its session is in, and no hook reports that an approval
// was answered.
//
//	permission  "• Running <cmd>", "Would you like to run the following
//	            command?" (…make the following edits? / …grant these
//	            permissions?), "Environment:", "Reason:", "$ <cmd>",
//	            "› 1. Yes, proceed (y)" … "3. No, and tell Codex what to do
//	            differently (esc)", "Press enter to confirm or esc to cancel"
//	working     "• Working (2s • esc to interrupt)" above the composer, which
//	            stays visible and empty with its "? for shortcuts" footer
//	idle        "› Ask Codex to do anything" (the empty composer), the model
//	            line, "← for agents · ? for shortcuts"; a typed draft
//	            replaces the placeholder and drops "? for shortcuts"
//	question    request_user_input, which Codex answers only in Plan mode
//	            (in Default mode the call returns "unavailable" at once) and
//	            for which no hook fires: "Question 1/2 (2 unanswered)", the
//	            question, "› 1. Blue   the sky" … "3. None of the above
//	            Optionally, add details in notes (tab)", "tab to add notes |
//	            enter to submit answer | esc to interrupt" ("submit all" on
//	            a form's last question, "←/→ to navigate questions" on a
//	            form); Tab opens "› Add notes" under the row, its footer "tab
//	            or esc to clear notes | enter to submit answer"
//	plan        a Plan mode reply's <proposed_plan>, shown as "• Proposed
//	            Plan", then "Implement this plan?", "› 1. Yes, implement
//	            this plan", "2. Yes, clear context and implement", "3. No,
//	            stay in Plan mode", "enter select · esc back"
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	questionHead := re(`^\s*Question \d+/\d+\b`)
	notes := re(`^\s*›\s+(\S.*?)\s*$`)
	draft := notes
	notesFooter := re(`(?i)^\s*tab or esc to clear notes\b`)
	// In a narrow pane (40 columns) the heading wraps after "the
	// following", and the footer after "esc to".
	heading := re(`(?i)would you like to (?:run the following|make the following|grant these)\b`)
	return panes.Rules{
		Lines: 40,
		States: []panes.State{
			{
				Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
				Anchor: re(`(?i)^\s*press enter to confirm(?: or esc to(?: cancel)?)?\s*$`),
				All:    []panes.Near{{Re: re(`^\s*(?:›\s*)?1\.\s+Yes\b`), From: -12, To: -1}},
				Any: []panes.Near{
					{Re: heading, From: -40, To: -1},
					{Re: re(`(?i)\(esc\)\s*$`), From: -6, To: -1},
				},
				Bottom: 2,
				Tools: []panes.ToolLine{
					{Re: re(`(?i)would you like to run the following\b`), Tool: "Bash", Within: 40},
					{Re: re(`(?i)would you like to make the following\b`), Tool: "apply_patch", Within: 40},
				},
				// The command: the "$ …" line under the heading, without the
				// "$ ", so it reads as the hook's text does.
				Text: &panes.Text{From: heading, Within: 40, Lines: 1,
					Skip: re(`(?i)^\s*(?:(?:environment|reason|permission rule):|(?:command|edits|permissions)\?\s*$)`),
					Stop: re(`^\s*(?:›\s*)?1\.\s`),
					Cut:  re(`^\$\s`)},
			},
			{
				// The composer holding a draft (a plan refused with what
				// to change is typed here): KeyMap.Input's.
				Name: paneDraft, Kind: panes.Wait, Attention: event.AttnPlan,
				Aside:  true,
				Anchor: draft,
				All:    []panes.Near{{Re: re(`^\s+\S+(?: \S+)? · .+ · `), From: 1, To: 2}},
				Bottom: 2,
				Text:   &panes.Text{From: draft, Within: 1, Inline: true, Lines: 1},
			},
			{
				Name: "plan", Kind: panes.Wait, Attention: event.AttnPlan,
				Needs:  []string{"implement this plan"},
				Anchor: re(`^\s*enter select · esc back\s*$`),
				All: []panes.Near{
					{Re: re(`^\s*Implement this plan\?\s*$`), From: -10, To: -2},
					{Re: re(`^\s*(?:›\s*)?1\.\s+Yes, implement this plan\b`), From: -8, To: -1},
				},
				Bottom: 1,
				// The plan's first lines, under "• Proposed Plan".
				Text: &panes.Text{From: re(`^\s*•\s*Proposed Plan\s*$`), Within: 40, Lines: 3, Skip: re(`^\s*$`),
					Stop: re(`^\s*(?:Worked for\b|Implement this plan\?)`)},
			},
			// Before working: the question's footer ends "esc to interrupt".
			{
				Name: paneNotes, Kind: panes.Wait, Attention: event.AttnQuestion, Tool: toolQuestion,
				Aside:  true, // KeyMap.Input's: the notes field and what it holds
				Needs:  []string{"clear notes"},
				Anchor: notes,
				All:    []panes.Near{{Re: notesFooter, From: 1, To: 2}},
				Bottom: 1,
				Text:   &panes.Text{From: notes, Within: 1, Inline: true, Lines: 1},
			},
			{
				Name: "question", Kind: panes.Wait, Attention: event.AttnQuestion, Tool: toolQuestion,
				Needs:  []string{"enter to submit"},
				Anchor: re(`(?i)^\s*tab (?:to add|or esc to clear) notes \| enter to submit (?:answer|all)\b`),
				All:    []panes.Near{{Re: questionHead, From: -30, To: -2}},
				Bottom: 1,
				Text: &panes.Text{From: questionHead, Within: 30, Lines: 2, Skip: re(`^\s*$`),
					Stop: re(`^\s*(?:›\s*)?\d+\.\s`)},
				// Its options, a description beside each; "None of the
				// above" last, where Tab opens the notes an own answer goes
				// in. A digit picks a row and answers at once, so an own
				// answer reaches its row by Down.
				Rows: &panes.Rows{Row: re(`^\s*(?:›\s*)?\d+\.\s+(\S.*?)(?:\s{2,}\S.*)?$`), Cursor: re(`^\s*›\s*\d+\.`),
					Target: re(`^\s*(?:›\s*)?\d+\.\s+None of the above\b`), Within: 30},
			},
			{
				Name: "working", Kind: panes.Busy,
				Anchor: re(`(?i)\besc to interrupt\b`),
				Bottom: 6,
			},
			{
				Name: "idle", Kind: panes.Idle,
				Anchor: re(`^\s*›\s`),
				All:    []panes.Near{{Re: re(`\?\s+for shortcuts`), From: 1, To: 3}},
				None:   []panes.Near{{Re: re(`(?i)\besc to interrupt\b`), From: -6, To: -1}},
				Bottom: 3,
			},
		},
	}
}
