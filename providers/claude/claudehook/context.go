package claudehook

import (
	"math"
	"strings"

	"github.com/agwatch/ag/filters/event"
)

// Context-window sizes in tokens.
const (
	WindowDefault = 200_000
	WindowLarge   = 1_000_000
)

// largeMarkers are what in a model name means the 1M window: the user's
// "[1m]" selection (in a display name, "(1M context)"), and model families
// that only come with it.
var largeMarkers = []string{"[1m]", "(1m context)", "fable", "mythos"}

// ContextWindow is the window of model, given the tokens the session uses
// now. A transcript names the API model (never "[1m]"), so a session that
// already holds more than the default window must be on the large one.
func ContextWindow(model string, used int64) int64 {
	return window(largeModel(model), used)
}

// largeModel reports whether model's name says the 1M window.
func largeModel(model string) bool {
	m := strings.ToLower(model)
	for _, k := range largeMarkers {
		if strings.Contains(m, k) {
			return true
		}
	}
	return false
}

func window(large bool, used int64) int64 {
	if large || used > WindowDefault {
		return WindowLarge
	}
	return WindowDefault
}

// LeftPct is the share of the window left, as Claude Code shows it: round
// the used share to a whole percent first, then subtract from 100.
func LeftPct(used, size int64) int {
	if size <= 0 {
		return 0
	}
	pct := int(math.Round(float64(used) / float64(size) * 100))
	return 100 - min(100, max(0, pct))
}

// ContextOf is the context meter for one main-thread response: what was
// sent to the model (input + cache read + cache write; output is not yet
// in the context).
func ContextOf(model string, t event.Tokens) *event.Context {
	c := new(Ctx)
	FillContext(c, model, t)
	return &c.Context
}

// Ctx is an event.Context with room for its LeftPct, for a caller that
// reuses one (a transcript parser makes one per response).
type Ctx struct {
	event.Context
	left int
	// The model last asked about and whether its name says the large
	// window: a transcript names the same model response after response.
	model string
	large bool
}

// FillContext is ContextOf into c.
func FillContext(c *Ctx, model string, t event.Tokens) {
	used := t.In + t.CacheRead + t.CacheWrite
	if model != c.model || model == "" {
		c.model, c.large = model, largeModel(model)
	}
	size := window(c.large, used)
	c.left = LeftPct(used, size)
	c.Context = event.Context{Used: used, Size: size, LeftPct: &c.left}
}
