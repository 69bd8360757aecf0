package proc

import (
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

// Match says what one process is: the agent id ("" for none) and whether it
// matched only as a launcher whose child is the real agent.
type Match func(exe string, argv []string) (agent string, launcher bool)

// Finder finds the agent running in a terminal, through wrappers. The
// rules are the caller's (providers' data); Finder only walks.
type Finder struct {
	Table *Table
	Info  Info
	Match Match
	// LookThrough reports whether a process that is no agent may be running
	// one as a child (a shell, env, npx …).
	LookThrough func(exe string, argv []string) bool
	// Shell reports whether a process is an interactive shell; one with no
	// children sits at its prompt and its inherited hint means nothing.
	Shell func(exe string, argv []string) bool
	// HintVar is the environment variable naming the agent behind a wrapper
	// ag cannot see through; Hint maps its value to an agent id or "".
	HintVar string
	Hint    func(value string) string
	// Trace, when set, hears every process the walk looks at and what it
	// made of it (ag-detect --explain).
	Trace func(pid int, exe string, argv []string, what string)
}

func (f *Finder) trace(pid int, exe string, argv []string, what string) {
	if f.Trace != nil {
		f.Trace(pid, exe, argv, what)
	}
}

// Search bounds the walk below a wrapper: a wrapper runs its agent as a
// child or grandchild; anything wider is a busy shell we should not scan.
const (
	SearchDepth = 2
	SearchLimit = 8
)

// Found is the agent process in a terminal.
type Found struct {
	Agent string
	PID   int
	Exe   string
	Argv  []string
	Via   string // "foreground", "descendant", "hint"
}

// Argv0 is the process's argv[0], or its executable when argv is unreadable.
func (f Found) Argv0() string {
	if len(f.Argv) > 0 {
		return f.Argv[0]
	}
	return f.Exe
}

// InTerminal finds the agent in the terminal whose first process is pid.
func (f *Finder) InTerminal(pid int) (Found, bool) {
	fg := f.Table.Foreground(pid)
	if fg != pid {
		f.trace(pid, f.Info.Exe(pid), f.Info.Argv(pid), "the pane's first process; its terminal's foreground is "+itoa(fg))
	}
	exe, argv := f.Info.Exe(fg), f.Info.Argv(fg)
	if agent, launcher := f.Match(exe, argv); agent != "" {
		found := Found{Agent: agent, PID: fg, Exe: exe, Argv: argv, Via: "foreground"}
		if launcher {
			f.trace(fg, exe, argv, "foreground: "+agent+"'s launcher, its child is the agent")
			if inner, ok := f.below(fg, agent); ok {
				return inner, true
			}
		}
		f.trace(fg, exe, argv, "foreground: "+agent)
		return found, true
	}
	if f.LookThrough != nil && f.LookThrough(exe, argv) {
		f.trace(fg, exe, argv, "foreground: no agent, a shell or launcher: its children are looked at")
		if inner, ok := f.below(fg, ""); ok {
			return inner, true
		}
	} else {
		f.trace(fg, exe, argv, "foreground: no agent")
	}
	if f.HintVar == "" || f.Hint == nil {
		return Found{}, false
	}
	if f.Shell != nil && f.Shell(exe, argv) && len(f.live(fg)) == 0 {
		return Found{}, false // a shell at its prompt: a hint it inherited names nothing running
	}
	v, ok := Getenv(f.Info.Env(fg), f.HintVar)
	if !ok {
		return Found{}, false
	}
	agent := f.Hint(strings.ToLower(strings.TrimSpace(v)))
	if agent == "" {
		f.trace(fg, exe, argv, f.HintVar+"="+v+" in its environment names no agent")
		return Found{}, false
	}
	f.trace(fg, exe, argv, f.HintVar+"="+v+" in its environment: "+agent)
	return Found{Agent: agent, PID: fg, Exe: exe, Argv: argv, Via: "hint"}, true
}

// below searches pid's descendants breadth first (SearchDepth levels, at
// most SearchLimit processes) for an agent (want: that agent only). A
// launcher found there is followed to its own child when it has one.
func (f *Finder) below(pid int, want string) (Found, bool) {
	level := []int{pid}
	visited := 0
	for depth := 0; depth < SearchDepth; depth++ {
		var next []int
		for _, parent := range level {
			for _, c := range f.live(parent) {
				visited++
				if visited > SearchLimit {
					return Found{}, false
				}
				exe, argv := f.Info.Exe(c), f.Info.Argv(c)
				agent, launcher := f.Match(exe, argv)
				if agent != "" && (want == "" || agent == want) {
					found := Found{Agent: agent, PID: c, Exe: exe, Argv: argv, Via: "descendant"}
					if launcher {
						f.trace(c, exe, argv, "child of "+itoa(parent)+": "+agent+"'s launcher, its child is the agent")
						if inner, ok := f.below(c, agent); ok {
							return inner, true
						}
					}
					f.trace(c, exe, argv, "child of "+itoa(parent)+": "+agent)
					return found, true
				}
				f.trace(c, exe, argv, "child of "+itoa(parent)+": no agent")
				next = append(next, c)
			}
		}
		level = next
	}
	return Found{}, false
}

// live is pid's children that are not zombies (Claude's exited helper).
func (f *Finder) live(pid int) []int {
	kids := f.Table.Children(pid)
	out := kids[:0:0]
	for _, k := range kids {
		if p, ok := f.Table.Get(k); ok && !p.Zombie {
			out = append(out, k)
		}
	}
	return out
}
