// Package t holds end-to-end tests of the real ag binaries: testscript files
// (*.txtar) that read like terminal sessions. TestMain builds ./cmd/... once
// and puts the binaries first on PATH.
package t

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agwatch/ag/filters/state"
)

var update = flag.Bool("update", false, "rewrite the txtar files' expected output")

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ag-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// t/notifyd is the test D-Bus notification server the ag-notify scripts use.
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "github.com/agwatch/ag/cmd/...", "github.com/agwatch/ag/t/notifyd")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building ./cmd/...:", err)
		os.Exit(2)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 ".",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("AG_DIR", env.WorkDir+"/.ag")
			env.Setenv("HOME", env.WorkDir+"/home")
			// The host every event of this machine carries (hooks, states).
			env.Setenv("AG_HOST", "vm")
			if wd, err := os.Getwd(); err == nil {
				env.Setenv("PIPELINE", filepath.Join(wd, "..", "contrib", "ag-pipeline"))
			}
			return os.MkdirAll(env.WorkDir+"/home", 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"keep":  keepState,
			"defer": deferCmd,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "tmux":
				_, err := exec.LookPath("tmux")
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// keepState is the script command "keep FILE": FILE, a state file written
// by hand, becomes one a running ag-fold keeps — this test process, alive
// for the whole script — so readers believe it (see filters/state.Judge).
func keepState(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: keep FILE")
	}
	path := ts.MkAbs(args[0])
	f, err := state.Load(path)
	ts.Check(err)
	ts.Check(state.Write(path, f.T, state.Self(0), f.Sessions))
}

// deferCmd is the script command "defer PROGRAM [ARGS...]": PROGRAM runs
// when the script ends, passed or failed, its outcome ignored — what a
// script starts outside testscript's reach (a tmux server, a pipeline in
// a process group of its own) is stopped even when a step fails.
func deferCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: defer PROGRAM [ARGS...]")
	}
	dir, path, home := ts.MkAbs("."), ts.Getenv("PATH"), ts.Getenv("HOME")
	ts.Defer(func() {
		c := exec.Command(args[0], args[1:]...)
		c.Dir, c.Env = dir, append(os.Environ(), "PATH="+path, "HOME="+home)
		c.Run()
	})
}
