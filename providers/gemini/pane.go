package gemini

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/gemini/geminihook"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// Pane state names the key map refers to.
const (
	paneIdle   = "idle"   // the empty composer
	paneDraft  = "draft"  // the composer holding text not sent
	paneShell  = "shell"  // the composer in shell mode: text runs as a command
	paneReview = "review" // the questions answered, waiting for Enter
	paneAnswer = "answer" // a question's own answer typed in
	paneFeed   = "feedback"
)

// PaneRules are Gemini CLI's screens, written from captures of 0.61.0 in
// tmux (testdata/screens). The hooks report every prompt at once
// (Notification ToolPermission); the pane says what kind it is and when
// it was answered — the command running, or the composer back after
// Escape — which no hook does until the tool ends. Each prompt hides the
// composer.
//
//	permission  a box: "? Shell  <cmd>", the command in a box of its own,
//	            "Allow execution of [Shell]?" (entering plan mode: "?
//	            Enter Plan Mode <reason>", "Do you want to proceed?"),
//	            "● 1. Allow once", "2. Allow for this session",
//	            "3. No, suggest changes (esc)"
//	edit        "? WriteFile  Writing to <file>" or "? Edit  <file>: <old>
//	            => <new>", the diff, "Apply this change?", the same
//	            options with "3. Modify with external editor" before
//	            "4. No, suggest changes (esc)"
//	question    "Answer Questions", a tab line when there are several
//	            ("← □ Name │ □ Go │ ≡ Review →"), the question, "● 1.
//	            Blue" … "3. Enter a custom value" (or "> Enter your
//	            response"), "Enter to select · … · Esc to cancel"; after
//	            the last of several, "Review your answers:" and "Enter to
//	            submit · Tab/Shift+Tab to edit answers · Esc to cancel"
//	plan        "Ready to start implementation?", the plan, "● 1. Yes,
//	            automatically accept edits", "2. Yes, manually accept
//	            edits", "3. Type your feedback...", "… Ctrl+G to edit plan
//	            · Esc to cancel"
//	working     "⠇ Thinking... (esc to cancel, 3s)" above the composer,
//	            which stays visible; while hooks run the label is
//	            "Executing Hooks: <commands>" with the same "(esc to cancel"
//	idle        ">   Type your message or @path/to/file" under the rule
//	            with no spinner above. "Executing Hook: …" with no spinner
//	            (AfterAgent's, after the turn) is idle too.
//	draft       the composer holding text ("> a draft"), idle; an Enter
//	            Gemini read as a newline leaves the text there
//	shell       "shell mode enabled (esc to disable)" over "!   Type your
//	            shell command" (or "! <command>"): idle, but what is typed
//	            there runs in a shell
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	allow := re(`^\s*(?:●\s*)?1\.\s+Allow once\s*$`)
	noChanges := panes.Near{Re: re(`No, suggest changes \(esc\)\s*$`), From: 1, To: 4}
	spinner := re(`\(esc to cancel, \d+[smh]`)
	rule := panes.Near{Re: re(`^─{20,}\s*$`), From: -4, To: -1}
	placeholder := re(`^\s*>\s+Type your message or @path/to/file\s*$`)
	dialog := panes.Near{Re: re(`^\s*Answer Questions\s*$`), From: -40, To: -2}
	// The row a dialog's cursor is on, or its text input, with what it
	// holds: the text, wrapped onto the lines below up to a blank one.
	typed := re(`^\s*(?:●\s*\d+\.|>)\s+(\S.*?)\s*$`)
	typedText := &panes.Text{From: typed, Within: 1, Inline: true, Lines: 8,
		Stop: re(`^\s*(?:$|(?:●\s*)?\d+\.\s|Enter to )`)}
	return panes.Rules{
		Lines: 40,
		States: []panes.State{
			{
				Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"allow once"},
				Anchor: allow,
				All:    []panes.Near{noChanges},
				Any: []panes.Near{
					{Re: re(`^\s*(?:Allow execution of\b.*\?|Do you want to proceed\?)\s*$`), From: -4, To: -1},
				},
				Bottom: 4, // the other options and the box's edge
				Tools: []panes.ToolLine{
					{Re: re(`^\s*\?\s+Shell\b`), Tool: geminihook.ToolShell, Within: 30},
					{Re: re(`^\s*\?\s+WebFetch\b`), Tool: geminihook.ToolWebFetch, Within: 30},
					{Re: re(`^\s*\?\s+Enter Plan Mode\b`), Tool: geminihook.ToolEnterPlan, Within: 30},
				},
				// The command: the first line inside the box under the
				// "? Shell" header, as the hook's details.command reads
				// (entering plan mode: the line the hook's prompt is).
				Text: &panes.Text{From: re(`^\s*\?\s+\S`), Within: 30, Lines: 1,
					Skip: re(`^[\s╭╮╰╯─]*$`),
					Stop: re(`^\s*(?:Allow execution of|Do you want to proceed)`)},
			},
			{
				Name: "edit", Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"apply this change?"},
				Anchor: allow,
				All:    []panes.Near{noChanges, {Re: re(`^\s*Apply this change\?\s*$`), From: -4, To: -1}},
				Bottom: 5,
				Tools: []panes.ToolLine{
					{Re: re(`^\s*\?\s+Edit\b`), Tool: geminihook.ToolReplace, Within: 60},
					{Re: re(`^\s*\?\s+WriteFile\b`), Tool: geminihook.ToolWrite, Within: 60},
				},
				// The header says it: "Writing to a.txt", "a.txt: old => new".
				Text: &panes.Text{From: re(`^\s*\?\s+(?:Edit|WriteFile)\s+(\S.*)$`), Within: 60, Inline: true, Lines: 1},
			},
			{
				Name: "plan", Kind: panes.Wait, Attention: event.AttnPlan, Tool: geminihook.ToolExitPlan,
				Needs:  []string{"yes, manually accept edits"},
				Anchor: re(`^\s*(?:●\s*)?2\.\s+Yes, manually accept edits\s*$`),
				All:    []panes.Near{{Re: re(`^\s*(?:●\s*)?1\.\s+Yes, automatically accept edits\s*$`), From: -3, To: -1}},
				Bottom: 8, // a description, the feedback line (wrapped), the footer, the edge
				Text: &panes.Text{From: re(`^\s*Ready to start implementation\?\s*$`), Within: 40, Lines: 8,
					Stop: re(`^\s*(?:●\s*)?1\.\s+Yes, automatically accept edits`)},
			},
			{
				Name: paneReview, Kind: panes.Wait, Attention: event.AttnQuestion, Tool: geminihook.ToolAskUser,
				Needs:  []string{"answer questions"},
				Anchor: re(`^\s*Enter to submit · .*edit answers · Esc to cancel\s*$`),
				All:    []panes.Near{dialog},
				Bottom: 2,
				Text:   &panes.Text{From: re(`^\s*Review your answers:\s*$`), Within: 30, Lines: 4},
			},
			{
				Name: "question", Kind: panes.Wait, Attention: event.AttnQuestion, Tool: geminihook.ToolAskUser,
				Needs:  []string{"answer questions"},
				Anchor: re(`^\s*Enter to (?:select|submit) · .*Esc to cancel\s*$`),
				All:    []panes.Near{dialog},
				Bottom: 2,
				// The question under the header (and the tab line, when
				// there are several), up to its options or its input.
				Text: &panes.Text{From: dialog.Re, Within: 40, Lines: 3,
					Skip: re(`^\s*←.*→\s*$`),
					Stop: re(`^\s*(?:(?:●\s*)?\d+\.\s|>\s)`)},
				// Its options (each description under its row is no row),
				// "Enter a custom value" last: an answer that is a label
				// is that option's digit.
				// Several questions: the tab line, "← □ Name │ □ Go │ ≡
				// Review →", above.
				Rows: &panes.Rows{Row: re(`^\s*(?:●\s*)?\d+\.\s+(\S.*?)\s*$`), Cursor: re(`^\s*●`),
					Target: re(`(?i)\benter a custom value\s*$`), Tabs: re(`^\s*←.*→\s*$`), Within: 30},
			},
			{
				Name: paneAnswer, Kind: panes.Wait, Attention: event.AttnQuestion, Tool: geminihook.ToolAskUser,
				Aside:  true, // KeyMap.Input's
				Needs:  []string{"answer questions"},
				Anchor: typed,
				All:    []panes.Near{dialog},
				Bottom: 10,
				Text:   typedText,
			},
			{
				Name: paneFeed, Kind: panes.Wait, Attention: event.AttnPlan, Tool: geminihook.ToolExitPlan,
				Aside:  true,
				Needs:  []string{"ready to start implementation?"},
				Anchor: typed,
				All:    []panes.Near{{Re: re(`^\s*Ready to start implementation\?\s*$`), From: -60, To: -2}},
				Bottom: 10,
				Text:   typedText,
			},
			{
				Name: "working", Kind: panes.Busy,
				Needs:  []string{"esc to cancel"},
				Anchor: spinner,
				Bottom: 8,
			},
			{
				Name: paneShell, Kind: panes.Idle,
				Needs:  []string{"shell mode enabled"},
				Anchor: re(`^\s*!\s`),
				All:    []panes.Near{rule, {Re: re(`^\s*shell mode enabled\b`), From: -3, To: -1}},
				None:   []panes.Near{{Re: spinner, From: -7, To: -1}},
				Bottom: 3,
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
				Bottom: 8, // a draft wrapped over lines, and the footer
				Text:   &panes.Text{From: re(`^\s*>\s+(.*\S)\s*$`), Within: 1, Inline: true, Lines: 8, Stop: re(`^\s*$`)},
			},
		},
	}
}
