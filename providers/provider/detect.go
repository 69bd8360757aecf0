package provider

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agwatch/ag/filters/panes"
)

// ProcRules say how an agent's processes look: data, so adding an agent
// never touches ag-detect. A process is looked at through three tokens,
// all lower-cased: its executable path, argv[0], and — when argv[0] or the
// executable is an interpreter (Interpreters) — the script it runs, the
// first argument that is not a flag. Looking at later arguments would make
// `vim claude` an agent.
type ProcRules struct {
	Names    []string // exact basenames: "claude"
	Prefixes []string // basename prefixes: "codex-"
	Paths    []string // substrings of a whole token: "/claude-code/"
	Not      []string // substrings of any token that veto a match: helpers, plugin hosts
	NotNames []string // exact basenames of any token that veto a match: another program behind the same name
	// NotArgs are arguments any of which vetoes a match, among the first
	// few: the same binary started as no agent session (Cline's hub
	// daemon, `cline --cline-hub-daemon`).
	NotArgs []string
	// Patterns are regular expressions over a whole token, for what a
	// substring cannot say (an agent definition's argv patterns).
	Patterns []*regexp.Regexp
	// Runtimes are interpreters beyond Interpreters() whose script is
	// looked at for this agent: python for an agent written in it.
	Runtimes []string
	// Launcher marks the forms that only start the agent: a process that
	// matches through a launcher interpreter (Codex: `node …/.bin/codex`)
	// has the real agent as a child, and the child is reported. Empty for
	// agents whose interpreter process is the agent itself (Claude's
	// `node …/cli.js`).
	LauncherInterpreters []string
	// Session, when set, is the session a process's command line names
	// (`codex resume <id>`), "" when it names none: the one direct link
	// from a pane to its session when hooks run elsewhere (Codex's shared
	// background server), so two panes in one directory are told apart.
	Session func(argv []string) string
	// Helper, when set, vetoes a process of the agent's own program that
	// is no session (Claude Code's daemon, pty hosts, spare processes and
	// subcommands), by its command line.
	Helper func(argv []string) bool
	// Viewer, when set, reads a process that shows a session running
	// elsewhere (`claude attach <job>`): the job, and the session id the
	// agent's files give for it with the process's environment (getenv);
	// "" and "" for any other process.
	Viewer func(argv []string, getenv func(string) string) (job, session string)
}

// ProcMatch is what a process looked like to ProcRules.Match.
type ProcMatch struct {
	OK       bool
	Launcher bool // matched as a launcher: look for the agent among its children
}

// Match reports whether a process with executable path exe and argument
// vector argv is this agent.
func (r ProcRules) Match(exe string, argv []string) ProcMatch {
	return r.match(exe, argv, nil)
}

// Why is what made Match take the process, for people (ag-detect
// --explain, the proc events' why): the token and the rule it met.
func (r ProcRules) Why(exe string, argv []string) string {
	var why string
	if !r.match(exe, argv, &why).OK {
		return ""
	}
	return why
}

func (r ProcRules) match(exe string, argv []string, why *string) ProcMatch {
	var toks [3]string
	var what [3]string
	n := 0
	add := func(s, w string) {
		if s != "" {
			toks[n], what[n] = strings.ToLower(s), w
			n++
		}
	}
	add(exe, "executable")
	interp := ""
	if len(argv) > 0 {
		add(argv[0], "argv[0]")
		if b := base(argv[0]); isOneOf(b, Interpreters()) || isOneOf(b, r.Runtimes) {
			interp = b
		}
	}
	if b := base(strings.ToLower(exe)); interp == "" && (isOneOf(b, Interpreters()) || isOneOf(b, r.Runtimes)) {
		interp = b
	}
	script := ""
	if interp != "" {
		script = ScriptArg(argv)
		add(script, "the script "+interp+" runs")
	}
	if r.Helper != nil && r.Helper(argv) {
		return ProcMatch{}
	}
	for i := 1; i < len(argv) && i < maxArgs; i++ {
		if isOneOf(argv[i], r.NotArgs) {
			return ProcMatch{}
		}
	}
	m := ProcMatch{}
	for _, t := range toks[:n] {
		for _, bad := range r.Not {
			if strings.Contains(t, bad) {
				return ProcMatch{}
			}
		}
		if isOneOf(base(t), r.NotNames) {
			return ProcMatch{}
		}
	}
	for i, t := range toks[:n] {
		if rule := r.matchToken(t); rule != "" {
			m.OK = true
			if why != nil {
				*why = what[i] + " " + t + ": " + rule
			}
			// Only the script token makes a launcher: an interpreter process
			// whose own path says "codex" is the agent.
			if script != "" && i == n-1 && isOneOf(interp, r.LauncherInterpreters) {
				m.Launcher = true
				if why != nil {
					*why += " (a launcher: the agent is its child)"
				}
			} else {
				m.Launcher = false
				break
			}
		}
	}
	return m
}

// matchToken names the rule a token meets, "" for none.
func (r ProcRules) matchToken(t string) string {
	b := base(t)
	if isOneOf(b, r.Names) {
		return "name " + b
	}
	for _, p := range r.Prefixes {
		if strings.HasPrefix(b, p) {
			return "prefix " + p
		}
	}
	for _, p := range r.Paths {
		if strings.Contains(t, p) {
			return "path " + p
		}
	}
	for _, re := range r.Patterns {
		if re.MatchString(t) {
			return "pattern " + re.String()
		}
	}
	return ""
}

// maxArgs bounds how many arguments NotArgs looks at.
const maxArgs = 8

// ScriptArg is the first argument after argv[0] that is not a flag (the
// script an interpreter runs), or "". Only the first few are looked at.
func ScriptArg(argv []string) string {
	for i := 1; i < len(argv) && i < 6; i++ {
		if a := argv[i]; a != "" && a[0] != '-' {
			return a
		}
	}
	return ""
}

func base(s string) string {
	if s == "" {
		return ""
	}
	return filepath.Base(s)
}

func isOneOf(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// IsOneOf reports whether the lower-cased basename of path is in list.
func IsOneOf(path string, list []string) bool {
	return isOneOf(base(strings.ToLower(path)), list)
}

// Interpreters run a script named by their first non-flag argument.
func Interpreters() []string {
	return []string{"node", "nodejs", "bun", "deno", "tsx"}
}

// Shells are looked through: when a pane's foreground process is one and
// matches no agent, its descendants are searched (a wrapper script that runs
// the agent as a child rather than exec'ing it).
func Shells() []string {
	return []string{"sh", "bash", "zsh", "fish", "dash", "ksh", "mksh", "tcsh", "csh", "nu", "pwsh", "elvish", "xonsh"}
}

// Wrappers are launchers that are no agent themselves and are looked
// through like shells.
func Wrappers() []string {
	return []string{"env", "nice", "nohup", "timeout", "time", "script", "stdbuf", "caffeinate", "direnv",
		"npx", "npm", "pnpm", "pnpx", "yarn", "bunx", "mise", "asdf", "uv", "uvx", "node", "bun", "deno"}
}

// HintVar names the environment variable that says which agent runs behind
// a wrapper ag cannot see through (ssh, docker exec): AG_AGENT=claude. It is
// read from the process's exec-time environment, only when nothing else
// matched, trimmed and lower-cased; a value that is no agent id is ignored.
const HintVar = "AG_AGENT"

// ProcDetector is a provider whose processes ag-detect recognises.
type ProcDetector interface {
	Provider
	ProcRules() ProcRules
}

// PaneDetector is a provider whose screens ag-detect classifies: text
// patterns over the bottom of `tmux capture-pane` that tell a permission
// prompt from a question picker, a plan approval and an idle composer.
type PaneDetector interface {
	Provider
	PaneRules() panes.Rules
}
