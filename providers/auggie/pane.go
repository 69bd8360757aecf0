package auggie

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// PaneRules are Auggie's screens, written from captures of Auggie 0.36.0
// in tmux (testdata/screens). No hook reports the approval dialog (its
// PreToolUse fires before it, and for every call, asked or not): the pane
// is the only sign of the wait, and of its end before PostToolUse.
//
//	permission  a box: "Tool Approval Required", then "<Label>: <what>"
//	            ("Terminal: echo …", "Save File: new.txt", "Remove Files:
//	            …"; a long command wraps inside the box, and the label of
//	            its first line loses its last letter: "Termina:"), and
//	            under the box, last on the screen, " [A]llow [D]eny". The
//	            composer is gone while it is up.
//	working     "⠙ Processing response... (2s • esc to interrupt)"
//	            ("Sending request...", "Executing tools..." while an
//	            approved command runs) above the composer
//	error       the idle composer under "API Error: "invalidArgument: HTTP
//	            error: 400 Bad Request"" and "⎿ Request ID: …"
//	idle        "›" alone between two rules, footer "? to show shortcuts";
//	            a draft shows "› <text>" (more lines under it) and the
//	            footer "Ctrl+P to enhance prompt, Ctrl+S to stash prompt"
//
// A reply that quotes the dialog's lines is text above the composer: the
// dialog must be the last thing on the screen, under a box's bottom edge.
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	rule := re(`^\s*─{8,}\s*$`)
	working := re(`^\s*\S\s+\S.*\.\.\.\s+\(\d+[smh][^)]*esc to interrupt\)\s*$`)
	label := `[A-Z][A-Za-z ]*?:`
	return panes.Rules{Lines: 45, States: []panes.State{
		{
			Name: "permission", Kind: panes.Wait, Attention: event.AttnPermission,
			Needs:  []string{"[a]llow [d]eny"},
			Anchor: re(`^\s*\[A\]llow \[D\]eny\s*$`),
			All: []panes.Near{
				{Re: re(`^\s*╰─+╯\s*$`), From: -1, To: -1},
				{Re: re(`^\s+Tool Approval Required\s*$`), From: -12, To: -3},
			},
			None: []panes.Near{{Re: rule, From: 1, To: 6}},
			Tools: []panes.ToolLine{
				{Re: re(`^\s+Termin\w*:\s`), Tool: "launch-process", Within: 12},
				{Re: re(`^\s+Save File:\s`), Tool: "save-file", Within: 12},
				{Re: re(`^\s+Remove Files:\s`), Tool: "remove-files", Within: 12},
				{Re: re(`^\s+(` + label[:len(label)-1] + `):\s`), Within: 12},
			},
			// The box's edges are gone (panes reads "│ text │" as " text").
			Text: &panes.Text{From: re(`^\s+Tool Approval Required\s*$`), Within: 12, Lines: 6,
				Stop: re(`^\s*╰─`), Cut: re(`^` + label + `\s`)},
		},
		{
			Name: "working", Kind: panes.Busy,
			Needs:  []string{"esc to interrupt"},
			Anchor: working,
			Bottom: 5,
		},
		{
			// The composer under "API Error: …": a failed request, which
			// fires no hook and writes nothing to the session file. A
			// state of its own, so the pane says the turn is over even
			// when it showed no other screen since the last idle one.
			Name: "error", Kind: panes.Idle,
			Needs:  []string{"api error:"},
			Anchor: re(`^\s*›\s*$`),
			All: []panes.Near{
				{Re: rule, From: -1, To: -1},
				{Re: rule, From: 1, To: 1},
				{Re: re(`^\s*\? to show shortcuts\b`), From: 2, To: 2},
				{Re: re(`^API Error: `), From: -6, To: -2},
			},
			None:   []panes.Near{{Re: working, From: -3, To: -1}},
			Bottom: 2,
		},
		{
			Name: "idle", Kind: panes.Idle,
			Needs:  []string{"to show shortcuts"},
			Anchor: re(`^\s*›\s*$`),
			All: []panes.Near{
				{Re: rule, From: -1, To: -1},
				{Re: rule, From: 1, To: 1},
				{Re: re(`^\s*\? to show shortcuts\b`), From: 2, To: 2},
			},
			None:   []panes.Near{{Re: working, From: -3, To: -1}},
			Bottom: 2,
		},
		{
			// The composer holding text, nothing at work: a draft.
			Name: "draft", Kind: panes.Idle,
			Needs:  []string{"to enhance prompt"},
			Anchor: re(`^\s*›\s+\S`),
			All: []panes.Near{
				{Re: rule, From: -1, To: -1},
				{Re: rule, From: 1, To: 12},
				{Re: re(`to enhance prompt`), From: 2, To: 13},
			},
			None:   []panes.Near{{Re: working, From: -3, To: -1}},
			Bottom: 13,
		},
	}}
}
