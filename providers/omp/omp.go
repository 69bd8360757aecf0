// Package omp is the omp provider (oh-my-pi, @oh-my-pi/pi-coding-agent),
// a fork of Pi that runs under Bun and kept Pi's extension API and
// session format. What differs from Pi: detection under Bun, a real tool
// approval pause (a permission wait, approved with Enter, denied with
// Escape), sessions changed in place (/new, /resume, a branch or a fork),
// the agent directory under $PI_CONFIG_DIR, and replies that refuse a
// leading "/" as well as "!".
package omp

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/internal/jsfile"
	"github.com/agwatch/ag/providers/omp/omphook"
	"github.com/agwatch/ag/providers/pi"
	"github.com/agwatch/ag/providers/provider"
)

// ID is omp's agent id in events.
const ID = omphook.ID

// Provider is omp.
type Provider struct {
	jsfile.Installer // the extension file (see spec)
	// env is where a session file's models are looked for when the file
	// is not in the agent directory (omp's XDG data dir): the user's.
	env paths.Env
}

// New returns the omp provider.
func New() *Provider { return &Provider{Installer: jsfile.Installer{Spec: spec}, env: os.Getenv} }

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
func (*Provider) Name() string { return "omp" }

// OneSessionPerProcess: one session at a time, changed in place.
func (*Provider) OneSessionPerProcess() bool { return true }

func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return omphook.Mapper{}.MapHook(raw, hc)
}

func (*Provider) ProcessNames() []string { return omphook.Mapper{}.ProcessNames() }

// AgentDir is omp's agent directory: $PI_CODING_AGENT_DIR, else
// <home>/<$PI_CONFIG_DIR or .omp>/agent — joined verbatim under HOME, as
// omp does (path.join(homedir(), PI_CONFIG_DIR)): an absolute
// PI_CONFIG_DIR=/tmp/x lands in ~/tmp/x/agent.
func AgentDir(env paths.Env) string {
	if d := env("PI_CODING_AGENT_DIR"); d != "" {
		return d
	}
	root := env("PI_CONFIG_DIR")
	if root == "" {
		root = ".omp"
	}
	return filepath.Join(paths.Home(env), root, "agent")
}

// SessionDirs are where omp writes sessions: <agent dir>/sessions, or,
// on Linux and macOS when $XDG_DATA_HOME/omp exists, there (omp moves its
// data under XDG then).
func SessionDirs(env paths.Env) []string {
	dirs := []string{filepath.Join(AgentDir(env), "sessions")}
	if x := env("XDG_DATA_HOME"); x != "" && env("PI_CODING_AGENT_DIR") == "" {
		if fi, err := os.Stat(filepath.Join(x, "omp")); err == nil && fi.IsDir() {
			// XDG drops the agent/ level (omp 18.2.3's dirs.ts, and seen
			// there: $XDG_DATA_HOME/omp/sessions/<dir>/<file>).
			dirs = append([]string{filepath.Join(x, "omp", "sessions")}, dirs...)
		}
	}
	return dirs
}

func spec(env paths.Env) jsfile.Spec { return pi.ExtensionSpec(ID, "omp", AgentDir(env)) }

// ProcRules: under Bun process.title never reaches ps, so the process is
// `bun …/node_modules/.bin/omp …` (npm's shim; a mise install's
// …/bin/omp) or `bun …/@oh-my-pi/pi-coding-agent/dist/cli.js`: bun is an
// interpreter, and its script's name "omp", or its path, says omp. A
// standalone build is itself "omp". Listed before Pi, whose package name
// omp kept.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names: []string{"omp"},
		Paths: []string{"/@oh-my-pi/pi-coding-agent/"},
	}
}

// Keys (read from omp's source and verified on 18.2.3): the approval
// dialog "Allow tool: <name>" opens on "Approve", so Enter approves;
// Escape resolves it as denied (the tool does not run, the turn returns
// to the composer) and can never approve. omp trims a reply before it
// checks for "/" (commands; /new would end the session) and "!" (shell):
// both refused.
func (*Provider) Keys() provider.KeyMap {
	return provider.KeyMap{
		Approve:         []string{"Enter"},
		Deny:            []string{"Escape"},
		FinishedPrelude: []string{},
		// The ask picker's own answer: Down to "Other (type your own)"
		// (counted on the pane), Enter opens its input, the text, Enter
		// once the input shows it.
		AnswerRow:     provider.RowsByDown,
		AnswerPrelude: []string{"Enter"},
		Input:         []string{paneCustom},
		UnsafeReply: func(text string) string {
			t := strings.TrimLeft(text, " \t\r\n\v\f\u00a0\u3000")
			switch {
			case strings.HasPrefix(t, "/"):
				return "a reply starting with / runs an omp command"
			case strings.HasPrefix(t, "!"):
				return "a reply starting with ! runs as a shell command in omp"
			}
			return ""
		},
	}
}

// Commands: `omp '<prompt>'` is interactive with the prompt submitted;
// `omp --resume <id>` reopens a session by id (prefix).
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "omp",
		Resume:    "{bin} --resume '{id}'",
		Spawn:     "{bin} '{prompt}'",
		ModelFlag: "--model",
	}
}

func (*Provider) TranscriptRoots(env provider.Env) []provider.Root {
	var roots []provider.Root
	for _, d := range SessionDirs(env) {
		roots = append(roots, provider.Root{Dir: d, Globs: []string{"*/*.jsonl"}})
	}
	return roots
}

// NewTranscriptParser: windows come from the agent directory's models
// file — the one the session file is in (<agent dir>/sessions/<dir>/
// <file>), else, for a session in the XDG data dir, the user's agent
// directory (omp keeps models, config, with the agent, XDG or not).
func (p *Provider) NewTranscriptParser(path string) provider.TranscriptParser {
	js := pi.ModelsBeside(path)
	if filepath.Base(filepath.Dir(js)) != "agent" && p.env != nil {
		js = filepath.Join(AgentDir(p.env), "models.json")
	}
	base := strings.TrimSuffix(js, ".json")
	return pi.NewSession(ID, path, pi.NewModelsFirst(base+".yml", base+".yaml", js).Window)
}
