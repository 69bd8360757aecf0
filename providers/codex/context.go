package codex

import "math"

// baselineTokens is what Codex treats as always present in the context
// (system prompt, fixed tool schemas, room to compact). Codex subtracts it
// from both the window and the usage, so right after the first prompt its
// footer shows 100% left and falls toward 0% as the user fills the rest.
const baselineTokens = 12_000

// ContextLeftPct is the "% context left" Codex shows for a context holding
// used tokens (last_token_usage.total_tokens) of a window
// (model_context_window): the baseline-adjusted share left, rounded half
// away from zero, within 0..100. A window no larger than the baseline
// reads 0.
func ContextLeftPct(used, window int64) int {
	if window <= baselineTokens {
		return 0
	}
	effective := window - baselineTokens
	u := max(used-baselineTokens, 0)
	left := max(effective-u, 0)
	pct := float64(left) / float64(effective) * 100
	return int(math.Round(min(max(pct, 0), 100)))
}
