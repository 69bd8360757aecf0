package droid

import "github.com/agwatch/ag/providers/provider"

var _ provider.Keyed = (*Provider)(nil)

// Keys is how to answer Factory Droid from its pane (0.225.2 in tmux):
//
//   - permission: a menu whose selected row shows only in bold, "Yes,
//     allow" first; Up stops at the top (no wrap), so Up three times and
//     Enter allow once, wherever the cursor was; Escape cancels ("Tool
//     execution cancelled by user", Stop, the composer back).
//   - question (AskUser: "1. Blue" … "Or type your own answer..."): a
//     digit picks its option at once; typed text goes to the own answer's
//     row ("Enter Submit answer"), which Enter submits. Escape stops the
//     agent.
//   - plan (ExitSpecMode, a spec to approve: "1. Proceed with the
//     proposal" … "5. No and explain why"): "1" proceeds and opens a
//     second menu whose "1" is "Proceed with Manual Approvals" (edits
//     still asked about; the others raise the autonomy), so "1" twice,
//     the second once that menu shows (PlanApproveThen: typed at once, it
//     was lost under load); Escape cancels, the spec not run.
//   - reply on a permission: Escape first (the call is cancelled and the
//     turn ends), then the text as the next message. Reply when finished:
//     straight in.
//   - Droid reads a first "/" as a command and a first "!" as a bash
//     command; whether it trims leading spaces first was not checked, so
//     such replies are refused.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:           []string{"Up", "Up", "Up", "Enter"},
		Deny:              []string{"Escape"},
		PlanApprove:       []string{"1", "1"},
		PlanApproveThen:   panePlanAutonomy,
		PlanDeny:          []string{"Escape"},
		AnswerPrelude:     []string{},
		AnswerRow:         provider.LabelsByDigit,
		Input:             []string{paneAnswer},
		PermissionPrelude: []string{"Escape"},
		FinishedPrelude:   []string{},
		UnsafeReply:       provider.LeadingCommand,
		Unsent:            []string{paneDraft},
	}
}
