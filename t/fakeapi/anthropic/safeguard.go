package anthropic

import (
	"encoding/json"
	"regexp"
)

// Claude Code's auto mode (2.1.332) asks the API to judge each tool call
// the reply makes: the request carries safeguards [{"type":
// "dangerous_tool_use", "classifier_context": {...}}] (beta header
// dangerous-tool-use-2026-09-03), and the API answers in the reply's
// message_delta, beside stop_reason:
//
//	"safeguard_results": [{"type": "dangerous_tool_use", "status": {
//	  "type": "available", "tool_uses": {"toolu_…": {"type": "evaluated",
//	  "outcome": "not_flagged" | "flagged", "explanation": "…"}}}}]
//
// (the shape the CLI's own parser accepts; "unsupported" and
// "unavailable" statuses exist too). A not_flagged call runs; a flagged
// one is put to the user on a prompt that opens on "No". A reply that
// carries no results makes the CLI assume a gateway dropped them: it
// says "Auto mode can't check actions in this session" and holds the
// next call that needs the check (Options.NoVerdicts).

// The fake's judge flags a call when the prompt that asked for it holds
// the word RISKY ("RISKY RUN: rm -rf build"); everything else passes.
var riskyRe = regexp.MustCompile(`\bRISKY\b`)

// Verdicts of the fake's safety check, as the request log shows them.
const (
	VerdictFlagged    = "flagged"
	VerdictNotFlagged = "not_flagged"
)

// safeguard is one entry of a request's safeguards.
type safeguard struct {
	Type string `json:"type"`
}

// wantsVerdicts reports whether the request asks for the tool-use check.
func wantsVerdicts(req *messagesRequest) bool {
	for _, s := range req.Safeguards {
		if s.Type == "dangerous_tool_use" {
			return true
		}
	}
	return false
}

// verdicts is the safeguard_results member judging each tool_use of msg,
// and the one outcome they share ("" when msg calls no tool).
func verdicts(msg message, flagged bool) (json.RawMessage, string) {
	outcome, why := VerdictNotFlagged, "The fake safety check passes this call."
	if flagged {
		outcome, why = VerdictFlagged, "The fake safety check flags calls a RISKY prompt asked for."
	}
	uses := map[string]any{}
	for _, b := range msg.Content {
		if b.Type == "tool_use" {
			uses[b.ID] = map[string]string{"type": "evaluated", "outcome": outcome, "explanation": why}
		}
	}
	if len(uses) == 0 {
		outcome = ""
	}
	raw, _ := json.Marshal([]any{map[string]any{"type": "dangerous_tool_use",
		"status": map[string]any{"type": "available", "tool_uses": uses}}})
	return raw, outcome
}
