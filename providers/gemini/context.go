package gemini

import "github.com/agwatch/ag/filters/event"

// Context windows, as Gemini CLI 0.61.0 counts them (tokenLimit in
// packages/core/src/core/tokenLimits.ts): the two Gemma 4 models have
// 256,000 tokens, every other model — the Gemini 2.5 and 3.x families,
// "auto" and names it does not know — 1,048,576. Gemini has no "[1m]"
// suffix or /model display name that changes a window.
const (
	DefaultWindow = 1048576
	gemmaWindow   = 256000
)

// ContextWindow is the window of model.
func ContextWindow(model string) int64 {
	switch model {
	case "gemma-4-31b-it", "gemma-4-26b-a4b-it":
		return gemmaWindow
	}
	return DefaultWindow
}

// Context is the context a response leaves: its prompt's tokens against
// the model's window, and what is left as 100 minus the share Gemini's
// footer shows used ("12% used": prompt/window to the nearest percent).
func Context(prompt int64, model string) *event.Context {
	size := ContextWindow(model)
	used := int((prompt*100 + size/2) / size)
	left := max(100-used, 0)
	return &event.Context{Used: prompt, Size: size, LeftPct: &left}
}
