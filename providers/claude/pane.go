package claude

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
)

// PaneRules are Claude Code's screens, written from captures of Claude Code
// 2.1.197 in tmux (testdata/screens). They matter because Claude's hooks
// cannot tell its waits apart: the AskUserQuestion picker and the plan
// approval fire the same permission_prompt Notification as a real permission
// prompt, and none of them is in the transcript while it is open. The pane
// is the only source that says which one it is, and the only positive sign
// that an Escaped prompt has gone (no hook fires for that).
//
// What each looks like at the bottom of the pane:
//
//	permission   "Bash command" / "Create file" header, the command or file,
//	             "Do you want to proceed?" (or "…create notes.txt?"),
//	             "❯ 1. Yes" … "3. No", "Esc to cancel · Tab to amend"
//	question     "☐ Header", the question, "❯ 1. Go" …, "3. Type something.",
//	             "Enter to select · ↑/↓ to navigate · Esc to cancel"; with
//	             several questions a "←  ☐ Checks  ☐ Output  ✔ Submit  →" tab
//	             row, and "[ ]" boxes in a multi-select
//	idle modes   the footer says "⏵⏵ accept edits on" or "⏸ plan mode on"
//	plan         "Ready to code?", "Here is Claude's plan:", the plan between
//	             ╌ rules, "… Would you like to proceed?", "1. Yes, and use auto
//	             mode", "2. Yes, manually approve edits", "ctrl+g to edit in Vim
//	             · ~/.claude/plans/<name>.md"
//	idle         "❯ " alone between two ─ rules, footer "? for shortcuts"
//	working      the same composer, footer "esc to interrupt", spinner above
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	rule := re(`^[\s─━╌┄┈╭╮╰╯-]+$`)        // a horizontal rule or box edge (or blank)
	option1 := re(`^\s*(?:❯\s*)?1\.\s+\S`) // "❯ 1. Yes"
	planMarks := []panes.Near{
		{Re: re(`(?i)use auto mode|manually approve edits|auto-accept edits|keep planning|tell claude what to change`), From: 1, To: 10},
		{Re: re(`/\.claude/plans/`), From: 1, To: 12},
		{Re: re(`(?i)^\s*ready to code\?`), From: -40, To: -1},
	}
	return panes.Rules{
		Lines: 40,
		States: []panes.State{
			{
				Name: "plan", Kind: panes.Wait, Attention: event.AttnPlan,
				Needs:  []string{"would you like to proceed?"},
				Anchor: re(`(?i)would you like to proceed\?`),
				All:    []panes.Near{{Re: option1, From: 1, To: 4}},
				Any:    planMarks,
				Bottom: 12,
				Tool:   "ExitPlanMode",
				Text: &panes.Text{From: re(`(?i)^\s*here is claude's plan:`), Within: 40, Lines: 3,
					Skip: rule, Stop: re(`(?i)would you like to proceed\?`)},
			},
			{
				// Without a plan file Claude asks a bare yes/no.
				Name: "plan-exit", Kind: panes.Wait, Attention: event.AttnPlan,
				Needs:  []string{"exit plan mode?"},
				Anchor: re(`(?i)^\s*exit plan mode\?\s*$`),
				All:    []panes.Near{{Re: option1, From: 1, To: 6}},
				Bottom: 6,
				Tool:   "ExitPlanMode",
				Text:   &panes.Text{From: re(`(?i)^\s*exit plan mode\?\s*$`), Within: 1, Lines: 1, Stop: option1},
			},
			{
				Name: "question", Kind: panes.Wait, Attention: event.AttnQuestion,
				Needs:  []string{"type something"},
				Anchor: re(`(?i)\b(?:enter|space) to (?:select|toggle)\b`),
				// "3. Type something." — "4. [ ] Type something" in a multi-select.
				All:    []panes.Near{{Re: re(`(?i)^\s*(?:❯\s*)?\d+\.\s+(?:\[.\]\s+)?type something\.?\s*$`), From: -25, To: -1}},
				Bottom: 2,
				Tool:   "AskUserQuestion",
				// The question is the nearest line above option 1.
				Text: &panes.Text{From: option1, Within: 30, Up: true, Lines: 1, Skip: rule},
				// One question, one answer: its numbered rows, the last
				// "Type something." (a multi-select's "[ ]" rows are no
				// rows; several questions' tab row reads no picker).
				Rows: &panes.Rows{Row: re(`^\s*(?:❯\s*)?\d\.\s+([^\[\s].*?)\s*$`), Cursor: re(`^\s*❯`),
					Target: re(`(?i)\btype something\.?\s*$`), Not: re(`✔\s*Submit\b`), Within: 30},
			},
			{
				Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"do you want to", "would you like to proceed?"},
				Anchor: re(`(?i)\b(?:do you want to (?:proceed|make this edit|create|allow|delete|overwrite|run|use|fetch)\b.*\?|would you like to proceed\?)\s*$`),
				All:    []panes.Near{{Re: option1, From: 1, To: 4}},
				None:   planMarks[:2],
				Bottom: 9,
				Tools: []panes.ToolLine{
					{Re: re(`^\s*Bash command\s*$`), Tool: "Bash", Within: 20},
					{Re: re(`^\s*Create file\s*$`), Tool: "Write", Within: 40},
					{Re: re(`^\s*Edit file\s*$`), Tool: "Edit", Within: 40},
					{Re: re(`^\s*Read file\s*$`), Tool: "Read", Within: 20},
					{Re: re(`^\s*Fetch\s*$`), Tool: "WebFetch", Within: 20},
					{Re: re(`^\s*Web search\s*$`), Tool: "WebSearch", Within: 20},
					{Re: re(`^\s*Edit notebook\s*$`), Tool: "NotebookEdit", Within: 40},
					// Else the tool call line the prompt belongs to: "● Bash(…)".
					{Re: re(`^\s*[●⏺]\s+([A-Za-z][\w-]*(?:\s*-\s*[\w-]+)?)\s*\(`), Within: 60},
				},
				Text: &panes.Text{
					From:   re(`^\s*(?:Bash command|Create file|Edit file|Read file|Fetch|Web search|Edit notebook|Tool use)\s*$`),
					Within: 40, Lines: 1, Skip: rule,
				},
			},
			{
				// Footer "esc to interrupt" (2.1.x), or the spinner line
				// "✻ Twisting… (esc to interrupt · 3s)" above the composer.
				Name: "working", Kind: panes.Busy,
				Needs:  []string{"esc to interrupt"},
				Anchor: re(`(?i)\besc to interrupt\b`),
				Bottom: 5,
			},
			{
				Name: "idle", Kind: panes.Idle,
				Needs:  []string{"for shortcuts", "⏵⏵", "⏸", "shift+tab to cycle"},
				Anchor: re(`^\s*[❯>]\s*$`),
				All: []panes.Near{
					{Re: re(`^\s*─{8,}\s*$`), From: -1, To: -1},
					{Re: re(`^\s*─{8,}\s*$`), From: 1, To: 1},
					{Re: re(`(?i)\?\s+for shortcuts|⏵⏵|⏸|shift\+tab to cycle`), From: 2, To: 3},
				},
				None:   []panes.Near{{Re: re(`(?i)esc to interrupt`), From: -8, To: 4}},
				Bottom: 4,
			},
			{
				// The composer holding text with nothing at work: a draft,
				// or the prompt Claude puts back after Escape before its
				// first output (2.1.197: no hook, no transcript line, and
				// the footer loses "? for shortcuts"). Claude at work
				// shows "esc to interrupt" beside it, a prompt replaces it.
				Name: "draft", Kind: panes.Idle,
				Needs:  []string{"❯"},
				Anchor: re(`^\s*❯\s*\S`),
				All: []panes.Near{
					{Re: re(`^\s*─{8,}\s*$`), From: -1, To: -1},
					{Re: re(`^\s*─{8,}\s*$`), From: 1, To: 8},
				},
				None:   []panes.Near{{Re: re(`(?i)esc to interrupt`), From: -8, To: 10}},
				Bottom: 10,
			},
		},
	}
}
