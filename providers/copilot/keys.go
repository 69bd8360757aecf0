package copilot

import (
	"strings"

	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Keyed     = (*Provider)(nil)
	_ provider.Commanded = (*Provider)(nil)
)

// Keys is how to answer Copilot from its pane, verified on Copilot CLI
// 1.0.102 in tmux:
//
//   - permission dialog (shell, URL access, file, path): "1. Yes" is
//     always first and a digit selects and submits, so "1" approves once.
//     The "No" row moves (2 on a plain command, 3 when a "don't ask again"
//     row is offered, 4 on URL access), so deny is Escape: the call does
//     not run ("✗ Shell … Operation aborted by user"), events.jsonl says
//     cancelled then abort, the turn ends at the composer. One call can
//     chain two dialogs (URL access, then the command): one key answers
//     one dialog.
//   - reply on a permission: the last row is "No, and tell Copilot what to
//     do differently", an inline text field (a digit or arrows reach it,
//     typed text goes in, Enter submits: "The user rejected this tool call.
//     User feedback: …" and the model goes on). The arrows do not wrap, so
//     Down, five times, reaches it from any row; a path dialog's last row
//     is "No (Esc)", where the text is dropped and Enter says no.
//   - plan review: the row "Accept plan and continue in Interactive
//     execution mode" (edits stay gated) moves with the recommended action,
//     so the pane names the digit (Screens) and nothing is typed when it
//     cannot; "Autopilot" approves every call and is never pressed.
//     Escape turns the plan down and stays in plan mode; a reply is
//     "Suggest changes", the last row, an inline text field like the
//     permission's.
//   - question (ask_user): a form. Up and Down move among a field's
//     choices, the last "Other (type your answer)", which opens a text
//     field under the form as soon as it is chosen; Enter accepts the
//     field ("User responded: Green", or the text typed). So an answer
//     that is a choice's label is Down (or Up) to it and Enter; other
//     text is Down to "Other", the text, and Enter after EnterDelay (the
//     field takes the text as typed: no wait for it to show, which
//     KeyMap.Input would also impose on the permission's feedback row).
//     With several fields Enter moves to the next, and the last
//     submits them all ("colour=Blue, size=Small"): an answer answers the
//     field on screen. A field of free text shows no choices, only "❯"
//     between two rules, the cursor in it: an answer is typed straight
//     in and Enter accepts it ("User responded: Ada 42"), a digit too
//     (pane state question-field). Escape cancels the form and the model
//     goes on without an answer.
//   - reply when finished: straight into the composer. Copilot trims a
//     leading space and reads "/" as a command and "!" as a shell command
//     run with no approval (the seeds, on 1.0.71), so such text is
//     refused rather than defused.
func (*Provider) Keys() provider.KeyMap {
	down := []string{"Down", "Down", "Down", "Down", "Down"}
	km := provider.KeyMap{
		Approve:           []string{"1"},
		Deny:              []string{"Escape"},
		PlanDeny:          []string{"Escape"},
		PermissionPrelude: down,
		PlanPrelude:       down,
		FinishedPrelude:   []string{},
		AnswerPrelude:     []string{},
		AnswerRow:         provider.RowsByDown,
		Fields:            []string{"question-field"},
		UnsafeReply:       unsafeReply,
		Screens:           map[string]provider.ScreenKeys{},
	}
	for n := 1; n <= 4; n++ {
		km.Screens[planState(n)] = provider.ScreenKeys{Approve: []string{string(rune('0' + n))}, Deny: []string{"Escape"}}
	}
	return km
}

func unsafeReply(text string) string {
	switch t := strings.TrimLeft(text, " \t\r\n\v\f\u00a0\u3000"); {
	case strings.HasPrefix(t, "/"):
		return "a reply starting with / is a slash command in Copilot"
	case strings.HasPrefix(t, "!"):
		return "a reply starting with ! runs as a shell command in Copilot"
	}
	return ""
}

// Commands are Copilot's command lines: `copilot -i '<prompt>'` starts an
// interactive session with the prompt submitted (-p would run it and
// exit); `copilot --resume=<id>` reopens a session (the line Copilot
// prints at /exit). No fork: --resume reopens the same session.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "copilot",
		Resume:    "{bin} --resume='{id}'",
		Spawn:     "{bin} -i '{prompt}'",
		ModelFlag: "--model",
	}
}
