// Package provider is the seam between ag's programs and the agents they
// watch. Every agent is one package under providers/ that returns a Provider;
// its capabilities are the optional interfaces in this package (hooks,
// transcripts, detection, keys, ...), which a program discovers with a type
// assertion. Programs hold no agent-specific knowledge.
package provider

import "github.com/agwatch/ag/filters/paths"

// Provider is one agent.
type Provider interface {
	ID() string   // the protocol's agent id: "claude"
	Name() string // for people: "Claude Code"
}

// Env is the environment a provider may consult (never os.Getenv directly,
// so tests can hand it a map).
type Env = paths.Env

// OneSession is an agent whose process runs one session at a time (Claude
// Code; Codex's TUI): when it speaks for a new session the one before has
// left it, even if nothing said so (Claude's --fork-session). An agent
// whose one process serves several sessions at once (OpenCode's server)
// does not implement it, and ag-fold never ends a session for sharing a
// process.
type OneSession interface {
	Provider
	OneSessionPerProcess() bool
}

// ManySessions is an agent whose one process hosts several live sessions
// at once, all shown in the pane it runs in (OpenCode's server: the
// sessions the user switches between keep working behind the one on
// screen). The pane shows the worst of them, and while more than one
// waits, each of those waits is ambiguous: a key typed into the pane
// answers whichever dialog it shows, so notifications offer no buttons
// and ag-keys refuses.
type ManySessions interface {
	Provider
	ManySessionsPerProcess() bool
}

// HookEnds is an agent whose hooks report the end of every turn while its
// transcript can only guess it (Gemini CLI records an answer before the
// tool calls that answer makes): in a session its hooks were heard from,
// ag-fold takes the turn's end from the hook alone.
type HookEnds interface {
	Provider
	HookEndsTurns() bool
}
