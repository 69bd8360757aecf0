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
	// A plan is told from a permission prompt only by what Claude itself
	// draws below the question, each line whole, at its place: an option
	// row only the plan picker has (" ❯ 1. Yes, and use auto mode", its
	// digit in the fourth column, the sixth in 2.1.332 — a wrapped option
	// runs on further in), and the plan file's footer (" ctrl+g to edit in
	// Vim · ~/.claude/plans/<name>.md", one space in, three in 2.1.332).
	// Text the model wrote — a command,
	// its description, the prefix a permission's option 2 repeats — can
	// hold the same words but never there: a plan phrase anywhere in a
	// line made a permission prompt read as a plan, and Approve typed "2",
	// "don't ask again" (issue 28).
	planOption := panes.Near{Re: re(`^│? (?:  )?[❯ ] [1-4]\. (?:Yes, and use auto mode|Yes,(?: and)? manually approve edits|Yes, and auto-accept edits|No, keep planning|Tell Claude what to change|No, refine with Ultraplan\b.*)[\s│]*$`), From: 1, To: 6}
	planFile := panes.Near{Re: re(`^ (?:  )?ctrl\+g to edit in\s.*·\s*\S*/\.claude/plans/[^/\s]+\.md\s*$`), From: 3, To: 12}
	planText := &panes.Text{From: re(`(?i)^\s*here is claude's plan:`), Within: 100, Lines: 3,
		Skip: rule, Stop: re(`(?i)would you like to proceed\?`)}
	dashed := re(`^\s*╌{8,}\s*$`)
	// The composer's rules. The one above carries the session's name at
	// its right end once the session has one (2.1.332: every background
	// session, and one renamed): "───…─── fake session ─".
	composerTop := re(`^\s*─{8,}(?: [^─]+ ─{1,4})?\s*$`)
	composerBottom := re(`^\s*─{8,}\s*$`)
	permissionTools := []panes.ToolLine{
		{Re: re(`^\s*Bash command\s*$`), Tool: "Bash", Within: 20},
		{Re: re(`^\s*Create file\s*$`), Tool: "Write", Within: 40},
		{Re: re(`^\s*Edit file\s*$`), Tool: "Edit", Within: 40},
		{Re: re(`^\s*Read file\s*$`), Tool: "Read", Within: 20},
		{Re: re(`^\s*Fetch\s*$`), Tool: "WebFetch", Within: 20},
		{Re: re(`^\s*Web search\s*$`), Tool: "WebSearch", Within: 20},
		{Re: re(`^\s*Edit notebook\s*$`), Tool: "NotebookEdit", Within: 40},
		// Else the tool call line the prompt belongs to: "● Bash(…)".
		{Re: re(`^\s*[●⏺]\s+([A-Za-z][\w-]*(?:\s*-\s*[\w-]+)?)\s*\(`), Within: 60},
	}
	// The command between the two ╌ rules above the question (2.1.332).
	boxed := &panes.Text{From: dashed, Within: 8, Up: true, Lines: 8, Stop: dashed}
	return panes.Rules{
		// 2.1.332 pads the plan approval to the pane's height: its plan
		// can be 40 lines above the question in a 50-line pane.
		Lines: 100,
		States: []panes.State{
			{
				// The plan with its file: the one plan a wait the hooks
				// called a permission may be taken for (KeyMap.PlanProof).
				Name: "plan", Kind: panes.Wait, Attention: event.AttnPlan,
				Needs:  []string{"would you like to proceed?"},
				Anchor: re(`(?i)would you like to proceed\?`),
				All:    []panes.Near{{Re: option1, From: 1, To: 4}, planOption, planFile},
				Bottom: 12,
				Tool:   "ExitPlanMode",
				Text:   planText,
			},
			{
				// The plan picker with no file's footer (Claude Code 1.x
				// drew it in a box): a plan where the hooks said so.
				Name: "plan-nofile", Kind: panes.Wait, Attention: event.AttnPlan,
				Needs:  []string{"would you like to proceed?"},
				Anchor: re(`(?i)would you like to proceed\?`),
				All:    []panes.Near{{Re: option1, From: 1, To: 4}, planOption},
				Bottom: 12,
				Tool:   "ExitPlanMode",
				Text:   planText,
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
				// 2.1.332's prompt auto mode puts to the user when its
				// safety check flagged a call or could not judge it: "❯ No"
				// first, "Yes" below, no digits — a stray key cannot
				// approve it.
				Name: "permission-no", Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"❯ no", "❯ yes"}, // a digit follows ❯ on every other prompt
				Anchor: re(`(?i)\bdo you want to (?:proceed|make this edit|create|allow|delete|overwrite|run|use|fetch)\b.*\?\s*$`),
				All: []panes.Near{
					{Re: re(`^\s*(?:❯\s*)?No\s*$`), From: 1, To: 2},
					{Re: re(`^\s*(?:❯\s*)?Yes\s*$`), From: 2, To: 3},
				},
				Bottom: 6,
				Tools:  permissionTools,
				Text:   boxed,
			},
			{
				// 2.1.332 boxes a command between ╌ rules, under the
				// header, a tip and the description (a file's prompt boxes
				// its content, and asks "… create notes.txt?": the
				// "permission" state reads its path). In a narrow pane
				// the options wrap (more lines below) and the header may
				// have scrolled away (the hook names the tool).
				Name: "permission-boxed", Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"do you want to proceed"},
				Anchor: re(`(?i)\bdo you want to proceed\?\s*$`),
				All:    []panes.Near{{Re: option1, From: 1, To: 4}, {Re: dashed, From: -6, To: -1}},
				None:   []panes.Near{planOption, planFile},
				Bottom: 16,
				Tools:  permissionTools,
				Text:   boxed,
			},
			{
				// Auto mode's hold (2.1.332): its safety check's verdicts
				// do not come back, so the next action that needs one
				// waits for this choice. Enter goes on to the action's own
				// prompt (permission-no), Escape cancels it.
				Name: "auto-hold", Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"auto mode can't check actions"},
				Anchor: re(`(?i)^\s*enter to stay in auto mode\b`),
				All:    []panes.Near{{Re: re(`(?i)^\s*auto mode can't check actions in this session\s*$`), From: -30, To: -1}},
				Bottom: 3,
				Text:   &panes.Text{From: re(`^\s*⎿\s+\$\s+(\S.*)$`), Within: 40, Inline: true, Lines: 1, Stop: re(`.`)},
			},
			{
				Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"do you want to", "would you like to proceed?"},
				Anchor: re(`(?i)\b(?:do you want to (?:proceed|make this edit|create|allow|delete|overwrite|run|use|fetch)\b.*\?|would you like to proceed\?)\s*$`),
				All:    []panes.Near{{Re: option1, From: 1, To: 4}},
				None:   []panes.Near{planOption, planFile},
				Bottom: 9,
				Tools:  permissionTools,
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
					{Re: composerTop, From: -1, To: -1},
					{Re: composerBottom, From: 1, To: 1},
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
					{Re: composerTop, From: -1, To: -1},
					{Re: composerBottom, From: 1, To: 8},
				},
				None:   []panes.Near{{Re: re(`(?i)esc to interrupt`), From: -8, To: 10}},
				Bottom: 10,
			},
		},
	}
}
