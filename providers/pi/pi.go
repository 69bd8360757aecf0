// Package pi is the Pi provider (@mariozechner/pi-coding-agent): the
// extension ag installs into Pi's agent directory (contrib/pi), meters
// from its session files, detection, keys and command lines. The
// extension's lines are mapped in pihook, which ag-hook links alone.
//
// Pi runs one session a process and has no approval pause: it runs every
// tool at once, so a Pi session never waits for permission, and there is
// nothing for approve or deny to answer.
package pi

import (
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/contrib"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/internal/jsfile"
	"github.com/agwatch/ag/providers/pi/pihook"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Pi's agent id in events.
const ID = pihook.ID

// Provider is Pi.
type Provider struct {
	jsfile.Installer // the extension file (see spec)
}

// New returns the Pi provider.
func New() *Provider { return &Provider{jsfile.Installer{Spec: spec}} }

var (
	_ provider.Hooked       = (*Provider)(nil)
	_ provider.Installer    = (*Provider)(nil)
	_ provider.OneSession   = (*Provider)(nil)
	_ provider.ProcDetector = (*Provider)(nil)
	_ provider.Keyed        = (*Provider)(nil)
	_ provider.Commanded    = (*Provider)(nil)
	_ provider.Transcripts  = (*Provider)(nil)
)

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Pi" }

// OneSessionPerProcess: /new and /resume end the session (session_shutdown)
// and start another in the same process.
func (*Provider) OneSessionPerProcess() bool { return true }

func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return pihook.Mapper{}.MapHook(raw, hc)
}

func (*Provider) ProcessNames() []string { return pihook.Mapper{}.ProcessNames() }

// AgentDir is Pi's agent directory: $PI_CODING_AGENT_DIR, else
// ~/.pi/agent (models.json, settings.json, extensions/, sessions/).
func AgentDir(env paths.Env) string {
	if d := env("PI_CODING_AGENT_DIR"); d != "" {
		return d
	}
	return filepath.Join(paths.Home(env), ".pi", "agent")
}

// ExtensionSpec is the extension file for agent (pi or omp) in its agent
// directory dir.
func ExtensionSpec(agent, name, dir string) jsfile.Spec {
	return jsfile.Spec{
		Path: filepath.Join(dir, "extensions", "ag.js"), Source: contrib.PiExtension,
		Kind: "ag-pi-extension", Agent: agent, Agent1: name,
	}
}

func spec(env paths.Env) jsfile.Spec { return ExtensionSpec(ID, "Pi", AgentDir(env)) }

// ProcRules: Pi runs under node and sets process.title = "pi", so its
// comm and argv are "pi" (the executable is node); before the title is
// set, or where the rewrite does not reach ps, its command line is `node
// …/@mariozechner/pi-coding-agent/dist/cli.js`. "pi" matches only as a
// whole name: the token is short.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names: []string{"pi"},
		Paths: []string{"/@mariozechner/pi-coding-agent/"},
		Not:   []string{"/@oh-my-pi/"},
	}
}

// Keys: no approve or deny (Pi has no approval pause). A reply when
// finished goes straight into the editor: a leading "/" is a command and
// one space in front defuses it, but Pi strips leading blanks before it
// looks for "!" and runs the text as a shell command: refused.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		FinishedPrelude: []string{},
		DefuseLeading:   " ",
		UnsafeReply: func(text string) string {
			if strings.HasPrefix(strings.TrimLeft(text, " \t\r\n\v\f\u00a0\u3000"), "!") {
				return "a reply starting with ! runs as a shell command in Pi"
			}
			return ""
		},
	}
}

// Commands: `pi '<prompt>'` is interactive with the prompt submitted (-p
// would print and exit); `pi --session <id>` reopens a session by id.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "pi",
		Resume:    "{bin} --session '{id}'",
		Spawn:     "{bin} '{prompt}'",
		ModelFlag: "--model",
	}
}

// TranscriptRoots: <agent dir>/sessions/--<cwd>--/<time>_<uuid>.jsonl.
func (*Provider) TranscriptRoots(env provider.Env) []provider.Root {
	return []provider.Root{{Dir: filepath.Join(AgentDir(env), "sessions"), Globs: []string{"*/*.jsonl"}}}
}

// NewTranscriptParser parses one session file; windows come from the
// models.json of the agent directory the file is in.
func (*Provider) NewTranscriptParser(path string) provider.TranscriptParser {
	return NewSession(ID, path, NewModels(ModelsBeside(path)).Window)
}

// ModelsBeside is the models.json of the agent directory a session file
// (<agent dir>/sessions/<dir>/<file>) is in.
func ModelsBeside(path string) string {
	return filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(path))), "models.json")
}
