//go:build e2e

// Package e2e runs the real agent CLIs (installed from npm at pinned
// versions) in a private tmux server against fake model APIs on 127.0.0.1,
// with the real ag programs watching them, and asserts what ag reports.
//
// A test builds a Harness (isolated HOME, AG_DIR, tmux server, fake server),
// installs an agent's hooks with the real ag-hook, starts the login pipeline
// (ag-tail --follow | ag-fold) with StartPipeline, runs the agent in a pane
// of the private tmux server (StartTmux, NewPane) and drives it with
// Pane.Type / Pane.Keys, then waits on the pipeline's Watcher for state
// events (Watcher.WaitFor, Session.Expect). StartDBus adds a private session
// bus for notifier tests. On failure everything needed to see why is
// written to the test log: the pane, the spool, each program's output and
// stderr, the fake server's requests.
package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
)

// Bins is the folder holding the ag programs built from this tree, and
// BuildErrors why the ones missing from it did not build (TestMain fills
// both through BuildBinaries).
var (
	Bins        string
	BuildErrors map[string]string
)

// BuildBinaries builds ./cmd/... of this module into a new temporary folder.
// When the whole set does not build (another program is mid-edit), each
// program is built alone, so the tests of the ones that build still run;
// the errors are returned per program name.
func BuildBinaries() (string, map[string]string, error) {
	dir, err := os.MkdirTemp("", "ag-e2e-bin-")
	if err != nil {
		return "", nil, err
	}
	out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "github.com/agwatch/ag/cmd/...").CombinedOutput()
	if err == nil {
		return dir, nil, nil
	}
	list, lerr := exec.Command("go", "list", "-e", "-f", "{{if eq .Name \"main\"}}{{.ImportPath}}{{end}}",
		"github.com/agwatch/ag/cmd/...").Output()
	if lerr != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("building ./cmd/...: %v\n%s", err, out)
	}
	failed := map[string]string{}
	for _, pkg := range strings.Fields(string(list)) {
		name := filepath.Base(pkg)
		if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg).CombinedOutput(); err != nil {
			failed[name] = strings.TrimSpace(string(out))
		}
	}
	return dir, failed, nil
}

// Bin is the path of one built ag program; the test fails if it is missing.
func Bin(t testing.TB, name string) string {
	t.Helper()
	if msg, ok := BuildErrors[name]; ok {
		t.Fatalf("%s does not build from this tree:\n%s", name, msg)
	}
	p := filepath.Join(Bins, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s was not built from this tree (./cmd/%s): %v", name, name, err)
	}
	return p
}

// Harness is one isolated world: a temp root with HOME, AG_DIR and a
// project folder, the environment every process gets, and what to show and
// tear down at the end.
type Harness struct {
	T       *testing.T
	Root    string // everything lives under it
	Home    string // $HOME
	AGDir   string // $AG_DIR: spool and state file
	Project string // the agents' working directory

	env     map[string]string
	dumps   []dump
	fakes   []fakeAPI
	closers []func()
}

type dump struct {
	name string
	f    func() string
}

// New makes the isolated world and registers its teardown: on failure the
// diagnostics are logged first, then everything started is stopped in
// reverse order.
func New(t *testing.T) *Harness {
	t.Helper()
	// Short root: tmux socket paths must stay under 108 bytes.
	root, err := os.MkdirTemp("", "ag-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	root, _ = filepath.EvalSymlinks(root)
	h := &Harness{T: t, Root: root,
		Home: filepath.Join(root, "home"), AGDir: filepath.Join(root, "ag"), Project: filepath.Join(root, "project")}
	for _, d := range []string{h.Home, h.AGDir, h.Project, filepath.Join(root, "xdg", "config"),
		filepath.Join(root, "xdg", "state"), filepath.Join(root, "xdg", "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	h.env = map[string]string{
		"PATH":            Bins + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME":            h.Home,
		"AG_DIR":          h.AGDir,
		"XDG_CONFIG_HOME": filepath.Join(root, "xdg", "config"),
		"XDG_STATE_HOME":  filepath.Join(root, "xdg", "state"),
		"XDG_RUNTIME_DIR": filepath.Join(root, "xdg", "run"),
		"LANG":            "C.UTF-8",
		"TERM":            "xterm-256color",
		"TZ":              "UTC",
		// ag-hook stays silent to the agent; this makes it log why to
		// $AG_DIR/ag-hook.log, shown on failure.
		"AG_DEBUG": "1",
	}
	h.Dump("spool", func() string { return tailFile(filepath.Join(h.AGDir, "spool.ndjson"), 200) })
	h.Dump("ag-hook.log", func() string { return tailFile(filepath.Join(h.AGDir, "ag-hook.log"), 50) })
	t.Cleanup(h.close)
	return h
}

// Setenv sets a variable for every process started afterwards.
func (h *Harness) Setenv(k, v string) { h.env[k] = v }

// Getenv returns a variable of the harness environment.
func (h *Harness) Getenv(k string) string { return h.env[k] }

// Environ is the harness environment as KEY=VALUE, sorted; nothing of the
// test process's own environment leaks in but PATH.
func (h *Harness) Environ() []string {
	env := make([]string, 0, len(h.env))
	for k, v := range h.env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// Dump registers a diagnostic shown in the test log if the test fails.
func (h *Harness) Dump(name string, f func() string) { h.dumps = append(h.dumps, dump{name, f}) }

// fakeAPI is what the harness needs of a fake model API it started.
type fakeAPI interface {
	Log() string
	Count(method string) int
}

// addFake registers a fake model API: its request log is shown on failure
// and its requests are counted by Requests.
func (h *Harness) addFake(name string, api fakeAPI) {
	h.fakes = append(h.fakes, api)
	h.Dump("fake "+name+" API requests", api.Log)
}

// Requests counts what the fake model APIs started here were sent: their
// POSTs (a CLI's GET of the model list sends the model nothing).
func (h *Harness) Requests() int {
	n := 0
	for _, api := range h.fakes {
		n += api.Count("POST")
	}
	return n
}

// OnClose registers a teardown step; steps run in reverse order.
func (h *Harness) OnClose(f func()) { h.closers = append(h.closers, f) }

func (h *Harness) close() {
	if h.T.Failed() {
		for _, d := range h.dumps {
			h.T.Logf("==== %s ====\n%s", d.name, strings.TrimRight(d.f(), "\n"))
		}
	}
	for i := len(h.closers) - 1; i >= 0; i-- {
		h.closers[i]()
	}
	if h.T.Failed() && os.Getenv("AG_E2E_KEEP") != "" {
		h.T.Logf("kept %s (AG_E2E_KEEP)", h.Root)
		return
	}
	os.RemoveAll(h.Root)
}

// Run runs a program to completion in the harness environment (dir =
// Project) and returns its combined output; a failure fails the test.
func (h *Harness) Run(timeout time.Duration, argv ...string) string {
	h.T.Helper()
	out, code := h.RunExit(timeout, argv...)
	if code != 0 {
		h.T.Fatalf("%s: exit status %d\n%s", strings.Join(argv, " "), code, out)
	}
	return out
}

// RunExit is Run for a program whose exit status is part of the answer
// (ag-hook status): only a failure to run it fails the test.
func (h *Harness) RunExit(timeout time.Duration, argv ...string) (string, int) {
	h.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = h.Environ(), h.Project
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		h.T.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// tailFile returns the last n lines of a file (each cut at 2000 bytes), or
// says it is empty or missing.
func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	switch {
	case os.IsNotExist(err):
		return "(no such file)"
	case err != nil:
		return err.Error()
	case len(b) == 0:
		return "(empty)"
	}
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("(... %d lines before)\n", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	for i, l := range lines {
		if len(l) > 2000 {
			lines[i] = l[:2000] + fmt.Sprintf("... (%d bytes)\n", len(l))
		}
	}
	return strings.Join(lines, "")
}

// WaitFile waits until the file at path contains every one of texts and
// returns its content; the test fails after timeout.
func (h *Harness) WaitFile(path string, timeout time.Duration, texts ...string) string {
	h.T.Helper()
	deadline := time.Now().Add(timeout)
	for {
		b, _ := os.ReadFile(path)
		ok := true
		for _, want := range texts {
			ok = ok && strings.Contains(string(b), want)
		}
		if ok {
			return string(b)
		}
		if time.Now().After(deadline) {
			h.T.Fatalf("%s did not come to hold %q within %s", path, texts, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// WaitState waits until ag-fold's state file ($AG_DIR/state.json) satisfies
// ok; what describes it in the failure.
func (h *Harness) WaitState(timeout time.Duration, ok func([]event.Event) bool, what string) []event.Event {
	h.T.Helper()
	path := filepath.Join(h.AGDir, "state.json")
	deadline := time.Now().Add(timeout)
	for {
		states, err := state.Read(path)
		if err == nil && ok(states) {
			return states
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(path)
			h.T.Fatalf("state file %s did not show %s within %s (%v):\n%s", path, what, timeout, err, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
