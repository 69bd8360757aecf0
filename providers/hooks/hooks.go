// Package hooks lists the agents whose hooks ag-hook runs, by the leaf
// packages that map their payloads. ag-hook imports this rather than the
// providers list: a hook is a process start, start-up time grows with the
// binary, and a provider brings its config editors, transcript parsers and
// pane rules along. Adding an agent with hooks is one line here beside its
// line in providers.All (TestSameAgents holds the two together).
package hooks

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/antigravity/agyhook"
	"github.com/agwatch/ag/providers/auggie/auggiehook"
	"github.com/agwatch/ag/providers/claude/claudehook"
	"github.com/agwatch/ag/providers/cline/clinehook"
	"github.com/agwatch/ag/providers/codex/codexhook"
	"github.com/agwatch/ag/providers/copilot/copilothook"
	"github.com/agwatch/ag/providers/crush/crushhook"
	"github.com/agwatch/ag/providers/cursor/cursorhook"
	"github.com/agwatch/ag/providers/droid/droidhook"
	"github.com/agwatch/ag/providers/gemini/geminihook"
	"github.com/agwatch/ag/providers/kilo/kilohook"
	"github.com/agwatch/ag/providers/omp/omphook"
	"github.com/agwatch/ag/providers/opencode/opencodehook"
	"github.com/agwatch/ag/providers/pi/pihook"
	"github.com/agwatch/ag/providers/provider"
	"github.com/agwatch/ag/providers/qwen/qwenhook"
)

// Mapper is what ag-hook needs of an agent: provider.Hooked without the
// rest of a provider.
type Mapper interface {
	ID() string
	// ProcessNames are the comm names of the agent's own process.
	ProcessNames() []string
	// MapHook turns one hook payload into the events it means.
	MapHook(payload []byte, hc provider.HookContext) ([]event.Event, error)
}

// Batcher is an agent whose hook is handed several JSON lines at once
// (ag's own plugins and extensions batch the events that came while an
// earlier ag-hook ran, and close stdin after them): its stdin is read to
// the end. Any other hook is read until its one JSON object is whole, so
// an agent that keeps stdin open does not hold it.
type Batcher interface {
	Batches() bool
}

// Answerer is an agent whose hooks must print something even when they
// decide nothing: an empty answer means "deny" to some (Cursor's
// preToolUse) and "{}" is the inert reply others expect (Antigravity,
// Gemini). ag-hook prints Answer's bytes on stdout on every path — a bad
// payload, an unwritable spool, a panic — and nothing else. An agent that
// is not an Answerer gets nothing on stdout.
type Answerer interface {
	// Answer is what the hook prints for payload, which may be empty,
	// truncated or not JSON at all (read it leniently, never fail). It
	// must never be a decision.
	Answer(payload []byte) []byte
}

// All returns every agent ag-hook runs hooks for, in providers.All's order.
func All() []Mapper {
	return []Mapper{
		claudehook.Mapper{},
		codexhook.Mapper{},
		geminihook.Mapper{},
		agyhook.Mapper{},
		opencodehook.Mapper{},
		kilohook.Mapper{},
		omphook.Mapper{},
		pihook.Mapper{},
		copilothook.Mapper{},
		cursorhook.Mapper{},
		qwenhook.Dialect(),
		droidhook.Dialect(),
		auggiehook.Mapper{},
		crushhook.Mapper{},
		clinehook.Mapper{},
	}
}

// ByID returns the agent with that id, or nil.
func ByID(id string) Mapper {
	for _, m := range All() {
		if m.ID() == id {
			return m
		}
	}
	return nil
}
