package cline

import (
	"regexp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.PaneDetector = (*Provider)(nil)

// The pane states ag-keys reads by name.
const (
	paneQuestion = "question"
	paneAnswer   = "answer" // the question's response row, text typed in
	panePromo    = "notice"
	paneHelp     = "help"
)

// PaneRules: Cline 3.0.65's screens, captured in tmux (testdata/screens).
// The TUI draws the chat, then the composer between two rules ("❯ Ask
// anything...", at the first column), then a footer of three lines (the
// model, the folder, "Auto-approve all enabled/disabled (Shift+Tab)"); a
// dialog takes the composer's place, so none is up while the composer
// shows. A scroll bar may end a line ("█").
//
//	permission  "Cline needs permission", "Approve tool call?", the
//	            tool, "$ <command>", "[y] Approve   [n] Deny"
//	plan        the same for plan mode's switch_to_act_mode ("Switch from
//	            plan mode to act mode")
//	question    "Cline is asking a question", the question, its options
//	            ("> " marks the cursor), and "Type a response..." (letters
//	            typed jump there and show with a "|" cursor: answer)
//	working     a spinner line ("⠴ Thinking... (esc to cancel)", "⠋
//	            run_commands(…)") in the chat over the composer
//	idle        the composer with no spinner over it
//	help        /help's list ("Esc/Enter to close"); after it closes, 3.0.65
//	            drops what is typed next
//	notice      a promotion over the composer ("Press Enter to open, any
//	            other key to close"), on the first starts: the next key
//	            closes it
//
// The hooks and the database report the waits; the rules are for
// ag-keys, which looks before it types, and for a dialog open before ag
// was.
func (*Provider) PaneRules() panes.Rules {
	re := regexp.MustCompile
	spinner := re(`^\s[\x{2800}-\x{28FF}]\s+\S`)
	// The composer at the first column (indented under the logo of a new
	// session); a prompt echoed in the chat is " ❯ …".
	composer := re(`^(?:\s{2,})?❯\s`)
	dialog := func(name, attn string, tool string, more ...panes.Near) panes.State {
		s := panes.State{
			Name: name, Kind: panes.Wait, Attention: attn,
			Needs:  []string{"approve tool call?"},
			Anchor: re(`^\s*\[y\] Approve\s+\[n\] Deny\s*█?$`),
			All: append([]panes.Near{
				{Re: re(`^\s*Approve tool call\?\s*█?$`), From: -8, To: -2},
				{Re: re(`^\s*Cline needs permission\s*█?$`), From: -9, To: -3},
			}, more...),
			Bottom: 4,
			Tools:  []panes.ToolLine{{Re: re(`^\s([a-z][a-z0-9_]*)\s*█?$`), Within: 6}},
			Text: &panes.Text{From: re(`^\s*Approve tool call\?`), Within: 8, Lines: 1,
				Skip: re(`^\s[a-z][a-z0-9_]*\s*█?$`), Stop: re(`\[y\] Approve`), Cut: re(`^\s*\$\s+`)},
		}
		if tool != "" {
			s.Tool, s.Tools = tool, nil
		}
		return s
	}
	row := re(`^\s\s(?:>\s|\s\s)(\S.*?)\|?\s*█?$`)
	return panes.Rules{
		Lines: 40,
		States: []panes.State{
			dialog("plan", event.AttnPlan, ToolSwitchToAct, panes.Near{Re: re(`^\s*switch_to_act_mode\s*█?$`), From: -6, To: -1}),
			dialog("permission", event.AttnPermission, ""),
			{
				// Anchored on the footer's first line, under the rows: the
				// options, then the response row.
				Name: paneQuestion, Kind: panes.Wait, Attention: event.AttnQuestion, Tool: "ask_question",
				Needs:  []string{"cline is asking a question"},
				Anchor: re(`\(Tab\)\s*█?$`),
				All:    []panes.Near{{Re: re(`^\s*Cline is asking a question\s*█?$`), From: -16, To: -3}},
				None:   []panes.Near{{Re: composer, From: -4, To: -1}},
				Bottom: 2,
				Text:   &panes.Text{From: re(`^\s*Cline is asking a question`), Within: 16, Lines: 1, Cut: re(`^\s+`)},
				Rows:   &panes.Rows{Row: row, Cursor: re(`^\s\s>\s`), Target: re(`(?:Type a response\.\.\.|\|)\s*█?$`), Within: 14},
			},
			{
				Name: paneAnswer, Kind: panes.Wait, Attention: event.AttnQuestion, Tool: "ask_question",
				Aside:  true, // KeyMap.Input's
				Needs:  []string{"cline is asking a question"},
				Anchor: re(`^\s\s>\s.*\|\s*█?$`),
				All:    []panes.Near{{Re: re(`^\s*Cline is asking a question\s*█?$`), From: -12, To: -2}},
				Bottom: 3,
				Text:   &panes.Text{From: re(`^\s\s>\s(.*)\|\s*█?$`), Within: 1, Lines: 1, Inline: true, Stop: re(`^`)},
			},
			{
				Name: panePromo, Kind: panes.Idle,
				Needs:  []string{"any other key to close"},
				Anchor: re(`Press Enter to open, any other key to close`),
				Bottom: 6,
			},
			{
				Name: paneHelp, Kind: panes.Idle,
				Needs:  []string{"esc/enter to close"},
				Anchor: re(`Esc/Enter to close`),
				Bottom: 3,
			},
			{
				// Only what is live spins: a call done shows "*" or "x".
				Name: "working", Kind: panes.Busy,
				Needs:  []string{"auto-approve all"},
				Anchor: composer,
				All:    []panes.Near{{Re: spinner, From: -40, To: -1}},
				Bottom: 4,
			},
			{
				Name: "idle", Kind: panes.Idle,
				Needs:  []string{"auto-approve all"},
				Anchor: composer,
				None:   []panes.Near{{Re: spinner, From: -40, To: -1}},
				Bottom: 4,
			},
		},
	}
}
