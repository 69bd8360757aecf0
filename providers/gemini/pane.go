package gemini

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/gemini/geminihook"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// PaneRules are Gemini CLI's screens, written from captures of 0.61.0 in
// tmux (testdata/screens). The hooks report every permission prompt at
// once (Notification ToolPermission); the pane says when one was answered
// — the command running, or the composer back after Escape — which no
// hook does until the tool ends.
//
//	permission  a box: "? Shell  <cmd>", the command in a box of its own,
//	            "Allow execution of [Shell]?" (edits: "Apply this
//	            change?"), "● 1. Allow once", "2. Allow for this session",
//	            "3. No, suggest changes (esc)"; the composer is hidden
//	working     "⠇ Thinking... (esc to cancel, 3s)" above the composer,
//	            which stays visible; while hooks run the label is
//	            "Executing Hooks: <commands>" with the same "(esc to cancel"
//	idle        ">   Type your message or @path/to/file" under the rule
//	            with no spinner above; a typed draft replaces the
//	            placeholder ("> a draft"), also idle. "Executing Hook: …"
//	            with no spinner (AfterAgent's, after the turn) is idle too.
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	allow := re(`^\s*(?:●\s*)?1\.\s+Allow once\s*$`)
	spinner := re(`\(esc to cancel, \d+[smh]`)
	return panes.Rules{
		Lines: 40,
		States: []panes.State{
			{
				Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
				Needs:  []string{"allow once"},
				Anchor: allow,
				All:    []panes.Near{{Re: re(`No, suggest changes \(esc\)\s*$`), From: 1, To: 4}},
				Any: []panes.Near{
					{Re: re(`^\s*(?:Allow execution of\b.*\?|Apply this change\?|Do you want to proceed\?)\s*$`), From: -4, To: -1},
				},
				Bottom: 4, // the other options and the box's edge: the composer is hidden
				Tools: []panes.ToolLine{
					{Re: re(`^\s*\?\s+Shell\b`), Tool: geminihook.ToolShell, Within: 30},
					{Re: re(`^\s*\?\s+Edit\b`), Tool: geminihook.ToolReplace, Within: 30},
					{Re: re(`^\s*\?\s+WriteFile\b`), Tool: geminihook.ToolWrite, Within: 30},
					{Re: re(`^\s*\?\s+WebFetch\b`), Tool: geminihook.ToolWebFetch, Within: 30},
				},
				// The command: the first line inside the box under the
				// "? Shell" header, as the hook's details.command reads.
				Text: &panes.Text{From: re(`^\s*\?\s+\S`), Within: 30, Lines: 1,
					Skip: re(`^[\s╭╮╰╯─]*$`),
					Stop: re(`^\s*(?:Allow execution of|Apply this change|Do you want to proceed)`)},
			},
			{
				Name: "working", Kind: panes.Busy,
				Needs:  []string{"esc to cancel"},
				Anchor: spinner,
				Bottom: 8,
			},
			{
				Name: "idle", Kind: panes.Idle,
				Anchor: re(`^\s*>\s`),
				All:    []panes.Near{{Re: re(`^─{20,}\s*$`), From: -4, To: -1}},
				None:   []panes.Near{{Re: spinner, From: -7, To: -1}},
				Bottom: 3,
			},
		},
	}
}
