package copilot

import (
	"regexp"
	"strconv"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// PaneRules are Copilot's screens, written from captures of Copilot CLI
// 1.0.102 in tmux (testdata/screens). Hooks and events.jsonl report every
// wait; the pane adds which picker is up (so the keys fit it) and the
// composer a turn left behind when no line was written (Escape Escape
// takes a running prompt back into the composer).
//
//	permission  a box: the intention, the command (or URL, path) in an inner
//	            box, "Do you want to run this command?" (…allow this
//	            access? / …create <file>? / …allow this?), "❯ 1. Yes" …
//	            "N. No, and tell Copilot what to do differently (Esc to
//	            stop)", "↑/↓ to navigate · enter to select · esc to cancel"
//	plan        "Plan Ready for Review", the summary, "1. Accept plan and
//	            continue in Autopilot execution mode (recommended)", "2.
//	            Accept plan and continue in Interactive execution mode …" (the
//	            recommended action comes first, so the order moves), "N.
//	            Suggest changes", the same footer
//	question    "Copilot needs information.", the question, with several
//	            fields a tab row ("[Colour]  Size"), the field's title, its
//	            choices and "Other (type your answer)", "↑/↓ select · enter
//	            accept · ctrl+d decline · esc cancel" ("· tab next ·" with
//	            several); a text field shows "❯" between two rules under
//	            its title instead, and the footer has no "↑/↓ select"
//	            (question-field).
//	            On "Other" ("Other (type your answer below)") a text field
//	            "❯ <text>" between two rules opens under the form
//	working     the footer "◎ Working esc esc edit prompt" (● … interrupt
//	            with a message queued) under the composer
//	idle        "❯" alone between two rules, footer "← open sidebar ·
//	            Interactive · Manual Approval · / commands · ? help · …"; a
//	            draft shows "❯ <text>" and the footer "… · @ files · # issues"
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	footer := re(`(?i)↑/↓ to navigate · enter to select · esc to cancel`)
	option1 := re(`^\s*(?:❯\s*)?1\.\s+\S`)
	innerBox := re(`^\s+╭─+╮\s*$`) // the outer box's top is flush left
	needsInfo := panes.Near{Re: re(`(?i)^\s*Copilot needs information\.?\s*$`), From: -30, To: -1}
	states := make([]panes.State, 0, 8)
	// One plan state per position of "continue in Interactive": digits
	// select and submit, and Interactive keeps each command gated
	// (Autopilot approves everything).
	for n := 1; n <= 4; n++ {
		states = append(states, panes.State{
			Name: planState(n), Kind: panes.Wait, Attention: event.AttnPlan,
			Needs:  []string{"accept plan and continue in interactive"},
			Anchor: re(`(?i)^\s*(?:❯\s*)?` + strconv.Itoa(n) + `\.\s+Accept plan and continue in Interactive\b`),
			All: []panes.Near{
				{Re: footer, From: 1, To: 6},
				{Re: re(`(?i)^\s*Plan Ready for Review\s*$`), From: -40, To: -1},
			},
			Bottom: 8,
			Tool:   "exit_plan_mode",
			Text: &panes.Text{From: re(`(?i)^\s*Plan Ready for Review\s*$`), Within: 40, Lines: 12,
				Skip: re(`^\s*─+\s*$`), Stop: option1},
		})
	}
	questionText := &panes.Text{From: needsInfo.Re, Within: 30, Lines: 1}
	states = append(states,
		panes.State{
			// A field of free text, the cursor in it: no choices, so the
			// footer starts at "enter accept"; the field is "❯" (and what
			// is typed) between two rules inside the form.
			Name: "question-field", Kind: panes.Wait, Attention: event.AttnQuestion,
			Needs:  []string{"enter accept"},
			Anchor: re(`(?i)^\s*enter accept\b.*\besc cancel\b`),
			All: []panes.Near{needsInfo,
				{Re: re(`^ ❯(?: .*)?$`), From: -4, To: -2},
				{Re: re(`^ ─{8,}\s*$`), From: -2, To: -1}},
			Bottom: 1,
			Tool:   "ask_user",
			Text:   questionText,
		},
		panes.State{
			Name: "question", Kind: panes.Wait, Attention: event.AttnQuestion,
			Needs:  []string{"enter accept"},
			Anchor: re(`(?i)\benter accept\b.*\besc cancel\b`),
			All:    []panes.Near{needsInfo},
			// With "Other" chosen, the text field it opens sits below.
			Bottom: 5,
			Tool:   "ask_user",
			Text:   questionText,
			// A field's choices sit two columns in ("   Green", "❯ Blue"),
			// the title, the question and the tab row of several fields
			// one; "Other (type your answer)" is last.
			// Several fields: their tab row above, "[Colour]  Size".
			Rows: &panes.Rows{Row: re(`^ (?:❯ |  )(\S.*?)\s*$`), Cursor: re(`^ ❯ `),
				Target: re(`(?i)^ (?:❯ |  )Other \(type your answer(?: below)?\)\s*$`),
				Tabs:   re(`^\s*(?:\[[^\]]+\]\s{2,}\S|\S.*\s{2,}\[[^\]]+\])`), Within: 12},
		},
		panes.State{
			Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
			Needs:  []string{"to navigate · enter to select"},
			Anchor: footer,
			All:    []panes.Near{{Re: re(`^\s*(?:❯\s*)?1\.\s+Yes\b`), From: -8, To: -1}},
			Any:    []panes.Near{{Re: re(`(?i)^\s*do you want to \S.*\?\s*$`), From: -12, To: -1}},
			None:   []panes.Near{{Re: re(`(?i)accept plan and continue`), From: -8, To: -1}},
			Bottom: 2,
			Tools: []panes.ToolLine{
				{Re: re(`(?i)^\s*do you want to run this command\?`), Tool: "shell", Within: 12},
				{Re: re(`(?i)^\s*do you want to allow this access\?`), Tool: "url", Within: 12},
				{Re: re(`(?i)^\s*do you want to (?:create|edit|delete|overwrite|write)\b`), Tool: "write", Within: 12},
				{Re: re(`(?i)^\s*do you want to allow this\?`), Tool: "read", Within: 12},
			},
			// What is asked about sits in the dialog's inner box.
			Text: &panes.Text{From: innerBox, Within: 25, Lines: 3, Stop: re(`^\s*╰─`)},
		},
		panes.State{
			Name: "working", Kind: panes.Busy,
			Needs:  []string{"working"},
			Anchor: re(`(?i)\bWorking\b.*\besc esc\b`),
			Bottom: 1,
		},
		panes.State{
			Name: "idle", Kind: panes.Idle,
			Needs:  []string{"/ commands"},
			Anchor: re(`^\s*❯\s*$`),
			All: []panes.Near{
				{Re: re(`^\s*─{8,}\s*$`), From: -1, To: -1},
				{Re: re(`^\s*─{8,}\s*$`), From: 1, To: 1},
				{Re: re(`·\s+/ commands\s+·`), From: 2, To: 2},
			},
			Bottom: 3,
		},
		panes.State{
			// The composer holding text, nothing at work: a draft, or the
			// prompt Escape Escape took back.
			Name: "draft", Kind: panes.Idle,
			Needs:  []string{"@ files"},
			Anchor: re(`^\s*❯\s*\S`),
			All: []panes.Near{
				{Re: re(`^\s*─{8,}\s*$`), From: -1, To: -1},
				{Re: re(`^\s*─{8,}\s*$`), From: 1, To: 8},
				{Re: re(`·\s+@ files\s+·`), From: 2, To: 9},
			},
			None:   []panes.Near{{Re: re(`(?i)\bWorking\b.*\besc esc\b`), From: 1, To: 10}},
			Bottom: 10,
		},
	)
	return panes.Rules{Lines: 45, States: states}
}

// planState names the plan picker whose Interactive choice is digit n.
func planState(n int) string { return "plan-" + strconv.Itoa(n) }
