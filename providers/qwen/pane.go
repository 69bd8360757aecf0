package qwen

import (
	"regexp"
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
	"github.com/agwatch/ag/providers/qwen/qwenhook"
)

var _ provider.PaneDetector = (*Provider)(nil)

// PaneRules are Qwen Code's screens, from captures of 0.24.4 in tmux
// (testdata/screens). The hooks report every prompt at once; the pane
// says when it was answered, which no hook does for a refusal. Each
// prompt is drawn in place of the composer, over "⠏ Waiting for user
// confirmation...".
//
//	permission  "? Shell <cmd> (<description>) ←", the command, "Allow
//	            execution of: 'echo'?", "› 1. Yes, allow once", "2. Always
//	            allow …" (auto mode, unclassified: "2. Switch to Default
//	            Mode and allow once (recommended)"), "… No, suggest
//	            changes (esc)"
//	question    "? AskUserQuestion Ask user 1 question ←", the header, the
//	            question, "❯ 1. Blue" with its description under it, …
//	            "3. Type something...", "↑/↓: Navigate | Enter: Select |
//	            Esc: Cancel"; text typed on the last row shows as
//	            "❯ 3. > Teal"
//	plan        "? ExitPlanMode Plan: ←", the plan, "Would you like to
//	            proceed?", "› 1. Yes, restore previous mode (auto)",
//	            "2. Yes, and auto-accept edits", "3. Yes, and manually
//	            approve edits", "4. No, keep planning (esc)"
//	working     ".. <phrase>... (2s · ↓ 8 tokens · esc to cancel)" above
//	            the composer, which stays
//	idle        ">   Type your message or @path/to/file" between two
//	            rules; a follow-up suggestion shows in grey in its place
//	            (the same characters as a draft without colour)
//	draft       the composer holding text ("> a draft", Qwen appends a
//	            zero-width space)
//
// When the chat outgrows the pane a scrollbar ("█") ends each line of it.
func (*Provider) PaneRules() panes.Rules {
	re := func(s string) *regexp.Regexp {
		return regexp.MustCompile(strings.ReplaceAll(s, `\s*$`, `[\s█]*$`))
	}
	spinner := re(`\(\d+[smh]\b[^()]*esc to cancel\)`)
	rule := panes.Near{Re: re(`^─{20,}\s*$`), From: -4, To: -1}
	placeholder := re(`^\s*>\s+Type your message or @path/to/file\s*$`)
	waiting := panes.Near{Re: re(`^\s*\S?\s*Waiting for user confirmation\.\.\.\s*$`), From: 1, To: 6}
	question := panes.Near{Re: re(`^\s*\?\s+AskUserQuestion\b`), From: -40, To: -2}
	typed := re(`^\s*❯\s*\d+\.\s+>\s+(\S.*?)\s*$`)
	return panes.Rules{
		Lines: 40,
		States: []panes.State{
			{
				Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"yes, allow once"},
				Anchor: re(`^\s*(?:›\s*)?1\.\s+Yes, allow once\s*$`),
				All: []panes.Near{
					{Re: re(`No, suggest changes \(esc\)\s*$`), From: 1, To: 4},
					{Re: re(`^\s*(?:Allow execution of: .*\?|Apply this change\?|Do you want to proceed\?)\s*$`), From: -3, To: -1},
				},
				Bottom: 10, // the other options, "Waiting for user confirmation..."
				Tools: []panes.ToolLine{
					{Re: re(`^\s*\?\s+Shell\s`), Tool: qwenhook.ToolShell, Within: 30},
				},
				// The header names the command, before its description.
				Text: &panes.Text{From: re(`^\s*\?\s+Shell\s+(.*?)\s+\([^()]*\)\s*←?\s*$`), Within: 30, Inline: true, Lines: 1},
			},
			{
				Name: "plan", Kind: panes.Wait, Attention: event.AttnPlan, Tool: qwenhook.ToolExitPlan,
				Needs:  []string{"would you like to proceed?"},
				Anchor: re(`^\s*(?:›\s*)?3\.\s+Yes, and manually approve edits\s*$`),
				All: []panes.Near{
					{Re: re(`^\s*Would you like to proceed\?\s*$`), From: -5, To: -1},
					{Re: re(`No, keep planning \(esc\)\s*$`), From: 1, To: 2},
				},
				Bottom: 8,
				Text: &panes.Text{From: re(`^\s*\?\s+ExitPlanMode\b`), Within: 40, Lines: 8,
					Skip: re(`^\s*$`), CutEnd: re(`█$`), Stop: re(`^\s*(?:o open full plan|Would you like to proceed)`)},
			},
			{
				Name: paneAnswer, Kind: panes.Wait, Attention: event.AttnQuestion, Tool: qwenhook.ToolQuestion,
				Aside:  true, // KeyMap.Input's
				Needs:  []string{"askuserquestion"},
				Anchor: typed,
				All:    []panes.Near{question},
				Bottom: 10,
				Text:   &panes.Text{From: typed, Within: 1, Inline: true, Lines: 1},
			},
			{
				Name: "question", Kind: panes.Wait, Attention: event.AttnQuestion, Tool: qwenhook.ToolQuestion,
				Needs:  []string{"enter: select"},
				Anchor: re(`^\s*↑/↓: Navigate \| Enter: Select \| Esc: Cancel\s*$`),
				All:    []panes.Near{question, waiting},
				Bottom: 6,
				// The header chip and the question, up to the options.
				Text: &panes.Text{From: question.Re, Within: 40, Lines: 3, Skip: re(`^\s*$`), CutEnd: re(`█$`),
					Stop: re(`^\s*(?:❯\s*)?\d+\.\s`)},
				// Its options (a description under each is no row), "Type
				// something..." last: an answer that is a label is its digit.
				Rows: &panes.Rows{Row: re(`^\s*(?:❯\s*)?\d+\.\s+(\S.*?)\s*$`), Cursor: re(`^\s*❯`),
					Target: re(`(?i)\btype something\.*`), Within: 30},
			},
			{
				Name: "working", Kind: panes.Busy,
				Needs:  []string{"esc to cancel"},
				Anchor: spinner,
				Bottom: 8,
			},
			{
				Name: paneIdle, Kind: panes.Idle,
				Anchor: placeholder,
				All:    []panes.Near{rule},
				None:   []panes.Near{{Re: spinner, From: -7, To: -1}},
				Bottom: 3,
			},
			{
				Name: paneDraft, Kind: panes.Idle,
				Anchor: re(`^\s*>\s`),
				All:    []panes.Near{rule},
				None:   []panes.Near{{Re: spinner, From: -7, To: -1}, {Re: placeholder, From: 0, To: 0}},
				Bottom: 8,
				Text: &panes.Text{From: re(`^\s*>\s+(.*?)[\s\x{200b}█]*$`), Within: 1, Inline: true, Lines: 8,
					Stop: re(`^(?:\s*$|─)`)},
			},
		},
	}
}
