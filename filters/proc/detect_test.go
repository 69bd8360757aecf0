package proc

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeInfo is a process table's details, by pid.
type fakeInfo map[int]struct {
	exe  string
	argv []string
	env  []string
}

func (f fakeInfo) Exe(pid int) string        { return f[pid].exe }
func (f fakeInfo) Argv(pid int) []string     { return f[pid].argv }
func (f fakeInfo) Env(pid int) []string      { return f[pid].env }
func (f fakeInfo) Cwd(pid int) string        { return "" }
func (f fakeInfo) Started(pid int) time.Time { return time.Time{} }
func p(exe string, argv ...string) struct {
	exe  string
	argv []string
	env  []string
} {
	return struct {
		exe  string
		argv []string
		env  []string
	}{exe: exe, argv: argv}
}

// The rules of a world with two agents, "claude" and "codex" (whose node
// wrapper only launches it), and the usual shells.
func finder(t *Table, info Info) *Finder {
	base := func(s string) string { return s[strings.LastIndexByte(s, '/')+1:] }
	return &Finder{
		Table: t, Info: info,
		Match: func(exe string, argv []string) (string, bool) {
			a0, a1 := "", ""
			if len(argv) > 0 {
				a0 = base(argv[0])
			}
			if len(argv) > 1 {
				a1 = base(argv[1])
			}
			switch {
			case base(exe) == "claude" || a0 == "claude":
				return "claude", false
			case a0 == "node" && a1 == "codex":
				return "codex", true
			case base(exe) == "codex":
				return "codex", false
			}
			return "", false
		},
		LookThrough: func(exe string, argv []string) bool { b := base(exe); return b == "bash" || b == "sh" || b == "env" },
		Shell:       func(exe string, argv []string) bool { b := base(exe); return b == "bash" || b == "sh" },
		HintVar:     "AG_AGENT",
		Hint: func(v string) string {
			if v == "claude" || v == "codex" {
				return v
			}
			return ""
		},
	}
}

func TestInTerminal(t *testing.T) {
	// Pane 100 runs bash on tty 1; what is in the foreground varies.
	withEnv := func(e struct {
		exe  string
		argv []string
		env  []string
	}, env ...string) struct {
		exe  string
		argv []string
		env  []string
	} {
		e.env = env
		return e
	}
	for _, tc := range []struct {
		name  string
		procs []Proc
		info  fakeInfo
		agent string
		pid   int
		via   string
	}{
		{"agent in the foreground",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 200, TTY: 1}, {PID: 200, PPID: 100, PGID: 200, TPGID: 200, TTY: 1}},
			fakeInfo{100: p("/bin/bash", "-bash"), 200: p("/n/claude", "claude")}, "claude", 200, "foreground"},
		{"pane process is the agent",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 100, TTY: 1}},
			fakeInfo{100: p("/n/claude", "claude")}, "claude", 100, "foreground"},
		{"a background agent is not the foreground",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 100, TTY: 1}, {PID: 200, PPID: 100, PGID: 200, TPGID: 100, TTY: 1}},
			fakeInfo{100: p("/bin/bash", "-bash"), 200: p("/n/claude", "claude")}, "claude", 200, "descendant"},
		{"launcher reports its child",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 200, TTY: 1}, {PID: 200, PPID: 100, PGID: 200, TTY: 1}, {PID: 201, PPID: 200, PGID: 200, TTY: 1}},
			fakeInfo{100: p("/bin/bash", "bash"), 200: p("/usr/bin/node", "node", "/p/.bin/codex"), 201: p("/p/vendor/codex", "/p/vendor/codex")}, "codex", 201, "descendant"},
		{"launcher without its child yet",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 200, TTY: 1}, {PID: 200, PPID: 100, PGID: 200, TTY: 1}},
			fakeInfo{100: p("/bin/bash", "bash"), 200: p("/usr/bin/node", "node", "/p/.bin/codex")}, "codex", 200, "foreground"},
		{"wrapper script: agent is a grandchild",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 300, TTY: 1}, {PID: 300, PPID: 100, PGID: 300, TTY: 1}, {PID: 301, PPID: 300, PGID: 300, TTY: 1}, {PID: 302, PPID: 301, PGID: 300, TTY: 1}},
			fakeInfo{100: p("/bin/bash", "bash"), 300: p("/bin/sh", "sh", "run.sh"), 301: p("/usr/bin/env", "env", "X=1"), 302: p("/n/claude", "claude")}, "claude", 302, "descendant"},
		{"too deep",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 300, TTY: 1}, {PID: 300, PPID: 100, PGID: 300, TTY: 1}, {PID: 301, PPID: 300, PGID: 300, TTY: 1}, {PID: 302, PPID: 301, PGID: 300, TTY: 1}, {PID: 303, PPID: 302, PGID: 300, TTY: 1}},
			fakeInfo{300: p("/bin/sh", "sh"), 301: p("/bin/sh", "sh"), 302: p("/bin/sh", "sh"), 303: p("/n/claude", "claude")}, "", 0, ""},
		{"zombie helper is skipped",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 100, TTY: 1}, {PID: 101, PPID: 100, PGID: 100, TTY: 1, Zombie: true}, {PID: 102, PPID: 100, PGID: 100, TTY: 1}},
			fakeInfo{100: p("/bin/sh", "sh", "-c", "x"), 101: p("/n/claude", "claude"), 102: p("/bin/sleep", "sleep")}, "", 0, ""},
		{"hint on a wrapper",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 200, TTY: 1}, {PID: 200, PPID: 100, PGID: 200, TTY: 1}},
			fakeInfo{100: p("/bin/bash", "bash"), 200: withEnv(p("/usr/bin/ssh", "ssh", "devbox"), "HOME=/root", "AG_AGENT= Codex\n")}, "codex", 200, "hint"},
		{"hint never overrides detection",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 100, TTY: 1}},
			fakeInfo{100: withEnv(p("/n/claude", "claude"), "AG_AGENT=codex")}, "claude", 100, "foreground"},
		{"unknown hint ignored",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 100, TTY: 1}},
			fakeInfo{100: withEnv(p("/usr/bin/ssh", "ssh"), "AG_AGENT=claude-code")}, "", 0, ""},
		{"an idle shell's inherited hint names nothing",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 100, TTY: 1}},
			fakeInfo{100: withEnv(p("/bin/bash", "-bash"), "AG_AGENT=claude")}, "", 0, ""},
		{"a shell running a script uses its hint",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 100, TTY: 1}, {PID: 101, PPID: 100, PGID: 100, TTY: 1}},
			fakeInfo{100: withEnv(p("/bin/sh", "sh", "wrap.sh"), "AG_AGENT=claude"), 101: p("/bin/sleep", "sleep")}, "claude", 100, "hint"},
		{"visit limit",
			append([]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 100, TTY: 1}}, kids(100, 9)...),
			fakeInfo{100: p("/bin/sh", "sh", "-c", "x"), 109: p("/n/claude", "claude")}, "", 0, ""},
		{"within the visit limit",
			append([]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 100, TTY: 1}}, kids(100, 8)...),
			fakeInfo{100: p("/bin/sh", "sh", "-c", "x"), 108: p("/n/claude", "claude")}, "claude", 108, "descendant"},
		{"foreground leader gone: oldest of the group",
			[]Proc{{PID: 100, PPID: 1, PGID: 100, TPGID: 150, TTY: 1}, {PID: 152, PPID: 1, PGID: 150, TTY: 1}, {PID: 151, PPID: 1, PGID: 150, TTY: 1}},
			fakeInfo{151: p("/n/claude", "claude"), 152: p("/bin/cat", "cat")}, "claude", 151, "foreground"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := finder(NewTable(tc.procs), tc.info)
			got, ok := f.InTerminal(100)
			if tc.agent == "" {
				if ok {
					t.Fatalf("found %+v, want nothing", got)
				}
				return
			}
			if !ok || got.Agent != tc.agent || got.PID != tc.pid || got.Via != tc.via {
				t.Fatalf("got %+v (%v), want %s pid %d via %s", got, ok, tc.agent, tc.pid, tc.via)
			}
		})
	}
}

func kids(parent, n int) []Proc {
	var out []Proc
	for i := 1; i <= n; i++ {
		out = append(out, Proc{PID: parent + i, PPID: parent, PGID: parent, TTY: 1})
	}
	return out
}

func TestGetenv(t *testing.T) {
	env := []string{"A=1", "AG_AGENT=x", "AG_AGENTS=no", "AG_AGENT=y", "B"}
	if v, ok := Getenv(env, "AG_AGENT"); !ok || v != "y" {
		t.Errorf("got %q %v", v, ok)
	}
	if _, ok := Getenv(env, "B"); ok {
		t.Errorf("B without = found")
	}
}

func TestDescendants(t *testing.T) {
	tab := NewTable([]Proc{{PID: 1}, {PID: 10, PPID: 1}, {PID: 11, PPID: 10}, {PID: 12, PPID: 10}, {PID: 20, PPID: 11}, {PID: 30, PPID: 1}})
	if got := tab.Descendants(10, 10); !slices.Equal(got, []int{11, 12, 20}) {
		t.Errorf("Descendants(10) = %v, want [11 12 20] (nearest first)", got)
	}
	if got := tab.Descendants(10, 2); !slices.Equal(got, []int{11, 12}) {
		t.Errorf("Descendants(10, 2) = %v", got)
	}
	if got := tab.Descendants(20, 10); len(got) != 0 {
		t.Errorf("Descendants of a leaf = %v", got)
	}
}
