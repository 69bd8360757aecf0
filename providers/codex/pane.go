package codex

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

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
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
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
