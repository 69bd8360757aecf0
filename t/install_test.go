package t

// make install and the login unit, as a new user follows doc/install.md: the
// "Run it at login" steps are read from it and run as written, in a
// fresh HOME with no checkout on PATH. No systemd user manager runs here
// (nor can one: it would take over the machine's cgroups), so what
// `systemctl --user enable --now` does is done by hand with systemd's own
// parts: `systemd-analyze --user unit-paths` says where systemd looks,
// `systemd-analyze verify --user` checks the unit enabled, and its dump
// gives ExecStart and Environment as systemd parsed them, which then run
// with only the environment a user manager gives its services.

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// inCheckout serialises the tests that run make in the checkout (its bin/,
// its .stage): they run beside the others, one at a time.
var inCheckout sync.Mutex

// pipelineStages are the programs ag-pipeline runs.
var pipelineStages = []string{"ag-tail", "ag-detect", "ag-fold", "ag-notify", "ag-keys"}

func TestReadmeLoginSteps(t *testing.T) {
	t.Parallel()
	inCheckout.Lock() // make builds into the checkout's bin/: one at a time
	defer inCheckout.Unlock()
	needInstallTools(t)
	steps := docBlock(t, "../doc/install.md", "## Run it at login", "on Linux (systemd user service):")
	home := t.TempDir()
	u := newUserManager(t, home)
	// Claude Code is on this machine (ag-hook install says so otherwise).
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, step := range steps {
		cmd, _, _ := strings.Cut(step, "  #")
		cmd = strings.TrimSpace(cmd)
		switch {
		case strings.HasPrefix(cmd, "make "):
			u.shell(t, "..", cmd)
		case strings.Contains(cmd, "ag-hook install"):
			out := u.shell(t, home, cmd)
			if strings.Contains(out, "warning") {
				t.Errorf("%s warns:\n%s", cmd, out)
			}
		case cmd == "systemctl --user daemon-reload && systemctl --user enable --now ag.service":
			u.enableNow(t, "ag.service")
		case strings.HasPrefix(cmd, "journalctl --user -u ag.service"):
			u.journal(t)
		default:
			t.Fatalf("doc/install.md step %q: this test does not know how to run it", step)
		}
	}
	if u.started == nil {
		t.Fatal("the steps of doc/install.md never start ag.service")
	}
	prefix := filepath.Join(home, ".local")
	u.checkStages(t, prefix)

	// The units of agents on other hosts, installed beside it, are found
	// by systemd too and run their script from the prefix.
	for unit, script := range map[string]string{"ag-remote@devbox.service": "ag-remote", "ag-mqtt@host.service": "ag-mqtt"} {
		argv, _ := u.verify(t, unit)
		if want := filepath.Join(prefix, "bin", script); len(argv) != 2 || argv[0] != want {
			t.Errorf("%s: ExecStart = %q, want %s and the instance", unit, argv, want)
		}
	}

	// The hooks run the installed ag-hook, and status, run from there, is
	// content with it.
	settings, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	hook := shellQuote(filepath.Join(prefix, "bin", "ag-hook")) + " claude"
	if !strings.Contains(string(settings), strconv.Quote(hook)) {
		t.Fatalf("settings.json does not run %s:\n%s", hook, settings)
	}
	if out := u.shell(t, home, "~/.local/bin/ag-hook status --agent claude"); !strings.HasPrefix(out, "claude: installed in") || strings.Contains(out, "warning") {
		t.Errorf("ag-hook status from the install:\n%s", out)
	}
	// From the checkout's bin/ (which make built), status warns.
	checkout, err := filepath.Abs("../bin/ag-hook")
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := u.command(home, checkout, "status").CombinedOutput(); !strings.Contains(string(out), "inside a checkout's bin/") {
		t.Errorf("ag-hook status run from the checkout's bin/ does not warn:\n%s", out)
	}

	// An agent's hook, run the way the agent runs it (sh -c, in its tmux
	// pane), reaches the pipeline the unit started: tmux shows the wait.
	u.tmuxHook(t, hook)
}

// TestInstallPrefix: `make install PREFIX=$(mktemp -d)`, then the unit
// alone finds every program there; make uninstall takes it all away.
func TestInstallPrefix(t *testing.T) {
	t.Parallel()
	inCheckout.Lock() // make builds into the checkout's bin/: one at a time
	defer inCheckout.Unlock()
	needInstallTools(t)
	// A space and a % (a systemd specifier unless written %%).
	prefix := filepath.Join(t.TempDir(), "ag 100%")
	home := t.TempDir()
	u := newUserManager(t, home)
	u.shell(t, "..", "make install PREFIX="+shellQuote(prefix))

	unit := filepath.Join(prefix, "share", "systemd", "user", "ag.service")
	argv, env := u.verify(t, unit)
	if want := filepath.Join(prefix, "bin", "ag-pipeline"); len(argv) != 1 || argv[0] != want {
		t.Errorf("ExecStart = %q, want %q", argv, want)
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, p := range append(slices.Clone(pipelineStages), "ag-hook", "ag-hook-setup", "ag-pipeline", "ag-remote", "ag-mqtt") {
		if got := lookPath(p, path); got != filepath.Join(prefix, "bin", p) {
			t.Errorf("the unit's PATH finds %s at %q, want it in %s/bin", p, got, prefix)
		}
	}
	for _, f := range []string{"share/man/man1/ag-fold.1", "share/man/man1/ag-hook.1", "share/ag/tmux/ag.tmux", "share/ag/shell/ag.zsh", "share/ag/shell/ag.fish"} {
		if _, err := os.Stat(filepath.Join(prefix, f)); err != nil {
			t.Errorf("not installed: %v", err)
		}
	}
	u.start(t, argv, env)
	u.checkStages(t, prefix)
	u.stop()

	// The tmux plugin, run from where it was installed, binds the
	// installed programs whatever tmux's PATH.
	plugin := filepath.Join(prefix, "share", "ag", "tmux", "ag.tmux")
	s := newTmux(t, []string{"PATH=/usr/bin:/bin"})
	s.run("run-shell", shellQuote(plugin))
	if keys := s.run("list-keys", "-T", "prefix", "S"); !strings.Contains(keys, shellQuote(filepath.Join(prefix, "bin"))+"/ag-keys focus --choose") {
		t.Errorf("the installed plugin binds\n%s\nnot %s/bin/ag-keys", keys, prefix)
	}

	u.shell(t, "..", "make uninstall PREFIX="+shellQuote(prefix))
	var left []string
	filepath.Walk(prefix, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("make uninstall left %q", left)
	}
}

// TestInstallLaunchd: on macOS make install writes the launchd agent with
// the paths filled in, XML-escaped (launchd expands neither ~ nor $HOME).
func TestInstallLaunchd(t *testing.T) {
	t.Parallel()
	inCheckout.Lock() // make builds into the checkout's bin/: one at a time
	defer inCheckout.Unlock()
	needInstallTools(t)
	prefix := filepath.Join(t.TempDir(), "a&b <c>")
	home := t.TempDir()
	agents := filepath.Join(home, "Library", "LaunchAgents")
	u := newUserManager(t, home)
	u.shell(t, "..", "make install OS=Darwin PREFIX="+shellQuote(prefix)+" LAUNCHDIR="+shellQuote(agents))
	if _, err := os.Stat(filepath.Join(prefix, "share", "systemd")); err == nil {
		t.Error("a systemd unit installed on macOS")
	}
	f, err := os.Open(filepath.Join(agents, "io.github.agwatch.ag.plist"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var p struct {
		Dict struct {
			Items []struct {
				XMLName xml.Name
				Text    string   `xml:",chardata"`
				Strings []string `xml:"string"`
			} `xml:",any"`
		} `xml:"dict"`
	}
	if err := xml.NewDecoder(f).Decode(&p); err != nil {
		t.Fatalf("plist: %v", err)
	}
	got := map[string][]string{} // key → the value's strings
	key := ""
	for _, it := range p.Dict.Items {
		switch it.XMLName.Local {
		case "key":
			key = it.Text
		case "string":
			got[key] = []string{it.Text}
		case "array":
			got[key] = it.Strings
		}
	}
	bin := filepath.Join(prefix, "bin")
	if want := []string{filepath.Join(bin, "ag-pipeline")}; !slices.Equal(got["ProgramArguments"], want) {
		t.Errorf("ProgramArguments = %q, want %q", got["ProgramArguments"], want)
	}
	if fi, err := os.Stat(filepath.Join(bin, "ag-pipeline")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("ag-pipeline not installed executable: %v", err)
	}
	if want := []string{filepath.Join(home, "Library", "Logs", "ag.log")}; !slices.Equal(got["StandardErrorPath"], want) {
		t.Errorf("StandardErrorPath = %q, want %q", got["StandardErrorPath"], want)
	}
	// The PATH launchd gives it: the dict inside EnvironmentVariables.
	b, _ := os.ReadFile(f.Name())
	if !strings.Contains(string(b), "<string>"+xmlEscape(bin)+":") {
		t.Errorf("EnvironmentVariables PATH does not start with %s:\n%s", bin, b)
	}
}

func needInstallTools(t *testing.T) {
	for _, p := range []string{"make", "systemd-analyze", "tmux", "sh"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s", p)
		}
	}
	if testing.Short() {
		t.Skip("builds and installs ag (-short)")
	}
}

// userManager stands in for `systemd --user`: the environment it gives
// services, and the one service it runs.
type userManager struct {
	home, runtime, tmuxDir string
	base                   []string // the environment of the user's shell and of services
	started                *exec.Cmd
	log                    *strings.Builder
}

func newUserManager(t *testing.T, home string) *userManager {
	rt, err := os.MkdirTemp("", "agrt")
	if err != nil {
		t.Fatal(err)
	}
	tm, err := os.MkdirTemp("", "agtm")
	if err != nil {
		t.Fatal(err)
	}
	u := &userManager{home: home, runtime: rt, tmuxDir: tm, log: &strings.Builder{}}
	t.Cleanup(func() {
		u.stop()
		exec.Command("tmux", "-S", u.tmuxSocket(), "kill-server").Run()
		os.RemoveAll(rt)
		os.RemoveAll(tm)
	})
	if err := os.Chmod(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	// What a user manager passes on (HOME, USER, LOGNAME, SHELL,
	// XDG_RUNTIME_DIR, the locale); TMUX_TMPDIR keeps the tmux server the
	// pipeline talks to this test's.
	u.base = []string{"HOME=" + home, "USER=" + os.Getenv("USER"), "LOGNAME=" + os.Getenv("USER"),
		"SHELL=/bin/sh", "XDG_RUNTIME_DIR=" + rt, "LANG=C.UTF-8", "TMUX_TMPDIR=" + tm}
	return u
}

func (u *userManager) tmuxSocket() string {
	return filepath.Join(u.tmuxDir, fmt.Sprintf("tmux-%d", os.Getuid()), "default")
}

// command is name run as the user would from a shell: the base
// environment, a PATH with Go but neither the checkout nor the test's
// binaries, and Go's own caches (a fresh HOME would build from nothing).
func (u *userManager) command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	gobin := ""
	if p, err := exec.LookPath("go"); err == nil {
		gobin = filepath.Dir(p) + ":"
	}
	cmd.Env = append(slices.Clone(u.base), "PATH="+gobin+"/usr/local/bin:/usr/bin:/bin")
	cmd.Env = append(cmd.Env, goEnv()...)
	return cmd
}

// goEnv is the Go settings this test runs with, which a fresh HOME lacks.
var goEnv = sync.OnceValue(func() []string {
	keys := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY"}
	out, err := exec.Command("go", append([]string{"env"}, keys...)...).Output()
	if err != nil {
		return nil
	}
	var env []string
	for i, v := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if i < len(keys) && v != "" {
			env = append(env, keys[i]+"="+v)
		}
	}
	return env
})

// shell runs line with sh -c in dir and returns its output.
func (u *userManager) shell(t *testing.T, dir, line string) string {
	t.Helper()
	out, err := u.command(dir, "sh", "-c", line).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return string(out)
}

func (u *userManager) analyze(args ...string) *exec.Cmd {
	cmd := exec.Command("systemd-analyze", append([]string{"--user"}, args...)...)
	cmd.Env = append(slices.Clone(u.base), "PATH=/usr/bin:/bin")
	return cmd
}

// enableNow is `systemctl --user enable --now NAME`: find the unit where
// systemd looks, link it into default.target.wants, check it as
// default.target pulls it in, and start it.
func (u *userManager) enableNow(t *testing.T, name string) {
	t.Helper()
	out, err := u.analyze("unit-paths").Output()
	if err != nil {
		t.Fatalf("systemd-analyze unit-paths: %v", err)
	}
	unit := ""
	for _, dir := range strings.Fields(string(out)) {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			unit = filepath.Join(dir, name)
			break
		}
	}
	if unit == "" {
		t.Fatalf("%s is in none of the directories systemd --user reads:\n%s", name, out)
	}
	wants := filepath.Join(u.home, ".config", "systemd", "user", "default.target.wants")
	if err := os.MkdirAll(wants, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(unit, filepath.Join(wants, name)); err != nil {
		t.Fatal(err)
	}
	if out, err := u.analyze("verify", "default.target").CombinedOutput(); err != nil || strings.Contains(string(out), name) {
		t.Fatalf("systemd-analyze verify default.target (%s enabled): %v\n%s", name, err, out)
	}
	argv, env := u.verify(t, name)
	u.start(t, argv, env)
}

// verify runs systemd-analyze verify on unit (a name or a path), which must
// pass without a word, and returns ExecStart's argv and the Environment
// from systemd's dump of what it parsed.
func (u *userManager) verify(t *testing.T, unit string) (argv, env []string) {
	t.Helper()
	var stderr strings.Builder
	cmd := u.analyze("verify", unit)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("systemd-analyze verify %s: %v\n%s", unit, err, stderr.String())
	}
	// At debug level verify also dumps each unit it loaded.
	cmd = u.analyze("verify", unit)
	cmd.Env = append(cmd.Env, "SYSTEMD_LOG_LEVEL=debug")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze verify %s: %v", unit, err)
	}
	inExec := false
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "Environment: "):
			// One variable a line, as it is.
			env = append(env, strings.TrimPrefix(line, "Environment: "))
		case line == "-> ExecStart:":
			inExec = true
		case inExec && strings.HasPrefix(line, "Command Line: "):
			argv = systemdWords(t, strings.TrimPrefix(line, "Command Line: "))
			inExec = false
		}
	}
	if len(argv) == 0 {
		t.Fatalf("no ExecStart in systemd's dump of %s:\n%s", unit, out)
	}
	return argv, env
}

// systemdWords splits a command line in systemd's dump: words, "quoted"
// with C escapes where they hold spaces or quotes.
func systemdWords(t *testing.T, s string) []string {
	var words []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] != '"' {
			w, rest, _ := strings.Cut(s, " ")
			words, s = append(words, w), rest
			continue
		}
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			t.Fatalf("systemd dump %q: %v", s, err)
		}
		w, _ := strconv.Unquote(q)
		words, s = append(words, w), s[len(q):]
	}
	return words
}

// start runs argv as the user manager runs a service: only its
// environment and the unit's, in a process group of its own (the unit's
// cgroup, which KillMode=control-group ends as one).
func (u *userManager) start(t *testing.T, argv, env []string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = "/"
	cmd.Env = append(slices.Clone(u.base), env...)
	cmd.Stdout, cmd.Stderr = u.log, u.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("ExecStart %q: %v", argv, err)
	}
	u.started = cmd
}

func (u *userManager) stop() {
	if u.started != nil && u.started.Process != nil {
		syscall.Kill(-u.started.Process.Pid, syscall.SIGTERM)
		u.started.Wait()
		u.started = nil
	}
}

// journal is journalctl: what the service said, which must not be a
// stage that could not start.
func (u *userManager) journal(t *testing.T) {
	t.Helper()
	time.Sleep(500 * time.Millisecond)
	if s := u.log.String(); strings.Contains(s, "not found") || strings.Contains(s, "restarting") {
		t.Fatalf("ag.service says:\n%s", s)
	}
}

// checkStages waits for the pipeline's five stages and checks each runs
// from prefix/bin.
func (u *userManager) checkStages(t *testing.T, prefix string) {
	t.Helper()
	bin, err := filepath.EvalSymlinks(filepath.Join(prefix, "bin"))
	if err != nil {
		t.Fatal(err)
	}
	var found map[string]string
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if u.started.ProcessState != nil {
			break
		}
		found = map[string]string{}
		for _, pid := range descendants(u.started.Process.Pid) {
			exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
			if err == nil && slices.Contains(pipelineStages, filepath.Base(exe)) {
				found[filepath.Base(exe)] = exe
			}
		}
		if len(found) == len(pipelineStages) {
			break
		}
	}
	if len(found) != len(pipelineStages) {
		t.Fatalf("the service runs %v, want all of %v; it said:\n%s", found, pipelineStages, u.log.String())
	}
	for name, exe := range found {
		if filepath.Dir(exe) != bin {
			t.Errorf("%s runs from %s, want %s", name, exe, bin)
		}
	}
}

// tmuxHook runs hook (the command in the agent's config) in a pane of the
// tmux server the service's ag-fold --tmux talks to, with a permission
// request on stdin, and waits for that pane to show the wait.
func (u *userManager) tmuxHook(t *testing.T, hook string) {
	t.Helper()
	payload := filepath.Join(u.home, "permission.json")
	if err := os.WriteFile(payload, []byte(`{"session_id":"5f24c1d2","transcript_path":"`+u.home+`/t.jsonl","cwd":"`+u.home+`","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build/"},"permission_suggestions":[]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := u.command(u.home, "tmux", append([]string{"-u"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %q: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "20", "sh -c "+shellQuote(hook+" < "+shellQuote(payload)+"; exec sleep 600"))
	pane := run("list-panes", "-F", "#{pane_id}")
	var got string
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if got = run("display-message", "-p", "-t", pane, "#{@ag_agent} #{@ag_status} #{@ag_tool}"); got == "claude waiting Bash" {
			return
		}
	}
	t.Fatalf("pane %s shows %q, want the wait; the service said:\n%s", pane, got, u.log.String())
}

// docBlock is the indented block that follows the paragraph ending in
// intro, in the section heading of the page at path.
func docBlock(t *testing.T, path, heading, intro string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, after := false, false
	var block []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == heading
		case !in:
		case !after:
			after = strings.HasSuffix(strings.TrimSpace(line), intro)
		case strings.HasPrefix(line, "    "):
			block = append(block, strings.TrimPrefix(line, "    "))
		case len(block) > 0:
			return block
		}
	}
	t.Fatalf("%s: no block after %q in %q", path, intro, heading)
	return nil
}

func descendants(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", out[i], out[i]))
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func lookPath(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func xmlEscape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// TestMakeRunInterrupt: Ctrl-C on make run (on a terminal from script(1))
// stops the pipeline and ends quietly: no "make: *** … Interrupt".
func TestMakeRunInterrupt(t *testing.T) {
	need(t, "builds ag", "make", "script")
	t.Parallel()
	inCheckout.Lock() // make builds into the checkout's bin/: one at a time
	defer inCheckout.Unlock()
	home := t.TempDir()
	u := newUserManager(t, home)
	u.shell(t, "..", "make build") // so the run below starts at once
	cmd := u.command("..", "script", "-qec", "make run ARGS='--backend exec --exec true'", "/dev/null")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// The pipeline is up once ag-notify says it is waiting on its backends
	// (it runs with no desktop and no tmux here); then Ctrl-C.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if len(pgrep(t, "ag-notify", home)) > 0 {
			break
		}
	}
	time.Sleep(300 * time.Millisecond)
	io.WriteString(in, "\x03")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("make run did not end on Ctrl-C:\n%s", out.String())
	}
	if s := out.String(); strings.Contains(s, "make: ***") || strings.Contains(s, "Interrupt") {
		t.Errorf("Ctrl-C on make run:\n%s", s)
	}
	if left := pgrep(t, "ag-", home); len(left) > 0 {
		t.Errorf("stages still run after Ctrl-C: %v", left)
	}
}

// need skips t where a tool is missing, and with -short when short says
// why the test is long.
func need(t *testing.T, short string, tools ...string) {
	t.Helper()
	for _, p := range tools {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s", p)
		}
	}
	if short != "" && testing.Short() {
		t.Skipf("%s (-short)", short)
	}
}

// pgrep lists the processes named like name* whose HOME is home.
func pgrep(t *testing.T, name, home string) []string {
	t.Helper()
	var out []string
	ps, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range ps {
		comm, _ := os.ReadFile(filepath.Join(p, "comm"))
		env, _ := os.ReadFile(filepath.Join(p, "environ"))
		if strings.HasPrefix(string(comm), name) && strings.Contains(string(env), "HOME="+home+"\x00") {
			out = append(out, strings.TrimSpace(string(comm)))
		}
	}
	return out
}
