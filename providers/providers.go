// Package providers is the ordered list of every agent ag knows: those
// written in Go (one package beside this file and one line in Go each),
// then those defined by files (providers/agentdef: the built-in ones and
// the user's). Programs ask this package, never an agent's by name.
package providers

import (
	"time"

	"github.com/agwatch/ag/providers/antigravity"
	"github.com/agwatch/ag/providers/auggie"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/providers/cline"
	"github.com/agwatch/ag/providers/codex"
	"github.com/agwatch/ag/providers/copilot"
	"github.com/agwatch/ag/providers/crush"
	"github.com/agwatch/ag/providers/cursor"
	"github.com/agwatch/ag/providers/droid"
	"github.com/agwatch/ag/providers/gemini"
	"github.com/agwatch/ag/providers/kilo"
	"github.com/agwatch/ag/providers/omp"
	"github.com/agwatch/ag/providers/opencode"
	"github.com/agwatch/ag/providers/pi"
	"github.com/agwatch/ag/providers/provider"
	"github.com/agwatch/ag/providers/qwen"
)

// Go returns every agent written in Go, in detection order (first match
// wins; the definitions' agents come after them, see All).
func Go() []provider.Provider {
	return []provider.Provider{
		claude.New(),
		codex.New(),
		gemini.New(),
		antigravity.New(),
		opencode.New(),
		kilo.New(),
		omp.New(), // before pi: omp kept pi's package name
		pi.New(),
		copilot.New(),
		cursor.New(),
		qwen.New(),
		droid.New(),
		auggie.New(),
		crush.New(),
		cline.New(),
	}
}

// ByID returns the provider with that agent id, or nil.
func ByID(id string) provider.Provider {
	for _, p := range All() {
		if p.ID() == id {
			return p
		}
	}
	return nil
}

// goByID is ByID among the agents written in Go: what only they can be
// (hooked, many sessions a process …) is asked for every event, and
// needs no definition file read.
func goByID(id string) provider.Provider {
	for _, p := range Go() {
		if p.ID() == id {
			return p
		}
	}
	return nil
}

// HookEndsTurns reports whether agent's hooks alone say when its turns end
// (see provider.HookEnds); false for an agent ag does not know.
func HookEndsTurns(agent string) bool {
	h, ok := goByID(agent).(provider.HookEnds)
	return ok && h.HookEndsTurns()
}

// OneSessionPerProcess reports whether agent's process runs one session at
// a time (see provider.OneSession); false for an agent ag does not know.
func OneSessionPerProcess(agent string) bool {
	o, ok := goByID(agent).(provider.OneSession)
	return ok && o.OneSessionPerProcess()
}

// ApprovalEstimates says how long a call of an agent's may run before
// ag-fold takes it as a probable approval wait (see
// provider.ApprovalEstimator); 0 for an agent whose hooks report its
// prompts. The answers are read once: the fold asks for every event.
func ApprovalEstimates() func(agent string) time.Duration {
	m := map[string]time.Duration{}
	for _, p := range Go() {
		if a, ok := p.(provider.ApprovalEstimator); ok {
			m[p.ID()] = a.ApprovalEstimate()
		}
	}
	return func(agent string) time.Duration { return m[agent] }
}

// ManySessionsPerProcess reports whether agent's one process hosts several
// live sessions at once (see provider.ManySessions); false for an agent ag
// does not know.
func ManySessionsPerProcess(agent string) bool {
	m, ok := goByID(agent).(provider.ManySessions)
	return ok && m.ManySessionsPerProcess()
}
