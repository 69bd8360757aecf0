package t

// Real tmux servers against the built binaries and contrib/tmux/ag.tmux:
// ag-fold --tmux pushes options onto the right pane and window as events
// flow, the plugin's formats render them, and its key bindings, pressed
// through a real attached client, jump to the waiting pane and approve.

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tserver is a private tmux server on a short socket path.
type tserver struct {
	t    *testing.T
	sock string
	env  []string
}

func newTmux(t *testing.T, env []string, args ...string) *tserver {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	dir, err := os.MkdirTemp("", "agt")
	if err != nil {
		t.Fatal(err)
	}
	s := &tserver{t: t, sock: filepath.Join(dir, "s"), env: env}
	t.Cleanup(func() {
		exec.Command("tmux", "-S", s.sock, "kill-server").Run()
		os.RemoveAll(dir)
	})
	s.run(append([]string{"-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "120", "-y", "30"}, args...)...)
	return s
}

func (s *tserver) run(args ...string) string {
	s.t.Helper()
	// -u: the test's locale may not be UTF-8, and tmux would print "⏳" as "__".
	cmd := exec.Command("tmux", append([]string{"-u", "-S", s.sock}, args...)...)
	cmd.Env = append(withoutTMUX(os.Environ()), s.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

func withoutTMUX(env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, "TMUX=") && !strings.HasPrefix(e, "TMUX_PANE=") {
			out = append(out, e)
		}
	}
	return out
}

// waitFor polls format at target until it expands to want (5 s).
func (s *tserver) waitFor(target, format, want string) {
	s.t.Helper()
	var got string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if got = s.run("display-message", "-p", "-t", target, format); got == want {
			return
		}
	}
	s.t.Fatalf("%s %q = %q, want %q", target, format, got, want)
}

// show is one option of exactly one scope, "" when unset.
func (s *tserver) show(scope, target, name string) string {
	s.t.Helper()
	args := []string{"show-options", "-qv" + scope}
	if target != "" {
		args = append(args, "-t", target)
	}
	return s.run(append(args, name)...)
}

func hookLine(kind, session, pane string, extra string) string {
	return fmt.Sprintf(`{"v":1,"t":"%s","kind":"%s","agent":"claude","session":"%s","src":"hook","id":"%s-%s-%d","pane":"%s"%s}`+"\n",
		time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), kind, session, kind, session, time.Now().UnixNano(), pane, extra)
}

func TestTmuxFoldOptionsAndFormats(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	env := []string{"AG_DIR=" + work, "HOME=" + work}
	s := newTmux(t, env, "sleep 600")
	s.run("split-window", "-d", "-t", "t:0", "sleep 600") // %1, same window as %0
	s.run("new-window", "-d", "-t", "t:", "sleep 600")    // %2, window @1
	s.run("rename-window", "-t", "t:0", "a")
	s.run("rename-window", "-t", "t:1", "b")

	plugin, err := filepath.Abs("../contrib/tmux/ag.tmux")
	if err != nil {
		t.Fatal(err)
	}
	s.run("set-option", "-g", "@ag_bin_dir", binDir)
	s.run("set-option", "-g", "@ag_pane_border", "on")
	// The user's own status-right (the default's clock could tick over
	// between two reads); the plugin puts its segment in front.
	s.run("set-option", "-g", "status-right", "R")
	s.run("run-shell", plugin)

	fold := exec.Command(filepath.Join(binDir, "ag-fold"), "--tmux", "-S", s.sock, "--check", "0", "--no-state")
	fold.Env = append(withoutTMUX(os.Environ()), env...)
	in, err := fold.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	fold.Stdout, fold.Stderr = io.Discard, &stderr
	if err := fold.Start(); err != nil {
		t.Fatal(err)
	}
	defer fold.Process.Kill()
	send := func(lines ...string) {
		for _, l := range lines {
			if _, err := io.WriteString(in, l); err != nil {
				t.Fatal(err)
			}
		}
	}

	send(hookLine("session.start", "s1", "%0", ""), hookLine("turn.start", "s1", "%0", `,"text":"fix it"`),
		hookLine("tool.start", "s1", "%0", `,"tool":"Bash","tool_id":"t1"`))
	s.waitFor("%0", "#{@ag_agent} #{@ag_status} #{@ag_icon} #{@ag_tool}", "claude working ⚙ Bash")
	s.waitFor("%0", "#{@ag_window_status} #{@ag_window_icon}", "working ⚙")
	s.waitFor("%2", "[#{@ag_status}][#{@ag_window_status}]", "[][]")
	if got := s.show("g", "", "@ag_working") + " " + s.show("g", "", "@ag_waiting"); got != "1 0" {
		t.Errorf("counts = %q", got)
	}

	// A second agent in the same window waits: its pane says so, the
	// window takes the worst, status-right counts it.
	send(hookLine("session.start", "s2", "%1", ""), hookLine("turn.start", "s2", "%1", ""),
		hookLine("wait", "s2", "%1", `,"attention":"permission","tool":"Edit","text":"edit main.go"`))
	s.waitFor("%1", "#{@ag_status} #{@ag_attention} #{@ag_icon} #{@ag_tool}", "waiting permission ⏳ Edit")
	s.waitFor("%0", "#{@ag_status} / #{@ag_window_status} #{@ag_window_icon}", "working / waiting ⏳")
	if got := s.show("p", "%0", "@ag_attention"); got != "" {
		t.Errorf("%%0 got %%1's attention: %q", got)
	}

	// The shipped formats render the options.
	s.waitFor("%0", "#{T:status-right}", "⏳1 R")
	s.waitFor("%0", "#{E:window-status-format}", "0:a* ⏳")
	s.waitFor("%2", "#{E:window-status-format}", "1:b ")
	s.waitFor("%1", "#{E:pane-border-format}", s.run("display-message", "-p", "-t", "%1", `#{E:#{?pane_active,#[reverse],}#{pane_index}#[default] "#{pane_title}"}`)+" claude ⏳ Edit")
	if got := s.show("g", "", "pane-border-status"); got != "top" {
		t.Errorf("@ag_pane_border on: pane-border-status = %q", got)
	}

	// The first finishes; the waiting one ends: its options go, the window
	// falls back to the other pane's done.
	send(hookLine("turn.end", "s1", "%0", ""))
	s.waitFor("%0", "#{@ag_status} #{@ag_icon} [#{@ag_tool}]", "done ✓ []")
	send(hookLine("session.end", "s2", "%1", `,"reason":"exit"`))
	s.waitFor("%1", "[#{@ag_agent}][#{@ag_status}]", "[][]")
	s.waitFor("%0", "#{@ag_window_status} #{@ag_window_icon}", "done ✓")
	s.waitFor("%0", "#{T:status-right}", "R")

	// The pipeline ends: every option it set is cleared.
	in.Close()
	if err := fold.Wait(); err != nil {
		t.Fatalf("ag-fold: %v: %s", err, stderr.String())
	}
	s.waitFor("%0", "[#{@ag_status}][#{@ag_window_status}][#{@ag_done}]", "[][][]")
	if stderr.Len() > 0 {
		t.Errorf("ag-fold stderr: %s", stderr.String())
	}
}

// TestTmuxPluginKeys presses the plugin's bindings through a real client:
// the inner server's client runs in a pane of an outer server, and the
// outer's send-keys types into it as a user would.
func TestTmuxPluginKeys(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	env := []string{"AG_DIR=" + work, "HOME=" + work}
	// Window 0 is a plain pane; windows 1 and 2 run fake agents (cat: it
	// echoes what ag-keys types) that wait for permission.
	// Another session's pane waits too: the jump switches the client there.
	in := newTmux(t, env, "cat")
	panes, ttys := in.fourPanes()
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	var b strings.Builder
	fmt.Fprintf(&b, "{\"v\":1,\"t\":%q,\"sessions\":[\n", now)
	for i, id := range []string{"w1", "w2", "w3"} {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"v":1,"t":%q,"kind":"state","agent":"claude","session":%q,"src":"fold","pane":%q,"tty":%q,"status":"waiting","attention":"permission","tool":"Bash","text":"make","token":"1.%d"}`,
			now, id, panes[i+1], ttys[i+1], i+1)
	}
	b.WriteString("\n]}\n")
	if err := os.WriteFile(filepath.Join(work, "state.json"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	plugin, err := filepath.Abs("../contrib/tmux/ag.tmux")
	if err != nil {
		t.Fatal(err)
	}
	in.run("set-option", "-g", "@ag_bin_dir", binDir)
	in.run("run-shell", plugin)

	out := newTmux(t, nil, "tmux", "-S", in.sock, "attach", "-t", "t")
	in.waitClient()
	press := func(key string) {
		t.Helper()
		out.run("send-keys", "-t", "t:0", "C-b", key)
	}
	wantCurrent := in.wantClientAt
	wantCurrent("t:0 " + panes[0])
	press("A")
	wantCurrent("t:1 " + panes[1])
	press("A")
	wantCurrent("t:2 " + panes[2])
	press("A")
	wantCurrent("u:0 " + panes[3])
	press("A") // cycles round
	wantCurrent("t:1 " + panes[1])

	// Approve in the current pane: Claude's allow-once key, typed into it.
	press("Y")
	var screen string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if screen = in.run("capture-pane", "-p", "-t", panes[1]); strings.TrimSpace(screen) == "1" {
			break
		}
	}
	if strings.TrimSpace(screen) != "1" {
		t.Fatalf("pane %s after approve shows %q, want the approve key 1", panes[1], screen)
	}
	for _, p := range panes[2:] {
		if s := strings.TrimSpace(in.run("capture-pane", "-p", "-t", p)); s != "" {
			t.Errorf("waiting pane %s got keys: %q", p, s)
		}
	}

	// Deny where nothing waits: refused, nothing typed, a message instead.
	in.run("select-window", "-t", "t:0")
	wantCurrent("t:0 " + panes[0])
	press("N")
	// The client shows the reason ag-keys gave.
	want := "ag: deny refused: no session in pane " + panes[0]
	var client string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && !strings.Contains(client, want); time.Sleep(50 * time.Millisecond) {
		client = out.run("capture-pane", "-p", "-t", "t:0")
	}
	if !strings.Contains(client, want) {
		t.Errorf("after a refused deny the client shows\n%s\nnot %q", client, want)
	}
	if s := strings.TrimSpace(in.run("capture-pane", "-p", "-t", panes[0])); s != "" {
		t.Errorf("deny typed into a pane with no session: %q", s)
	}

	// A popup's press (an action from the tmux backend) that is refused:
	// the popup has closed, so its clients are told why.
	keys := exec.Command(filepath.Join(binDir, "ag-keys"), "-S", in.sock)
	keys.Env = append(withoutTMUX(os.Environ()), env...)
	keys.Stdin = strings.NewReader(`{"v":1,"t":"` + now + `","kind":"action","agent":"claude","session":"w1","src":"notify","id":"p1","pane":"` + panes[1] + `","action":"approve","token":"1.0","backend":"tmux"}` + "\n")
	stderr, _ := keys.CombinedOutput()
	want = "ag: approve refused: stale: the session moved on"
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && !strings.Contains(client, want); time.Sleep(50 * time.Millisecond) {
		client = out.run("capture-pane", "-p", "-t", "t:0")
	}
	if !strings.Contains(client, want) || !strings.Contains(string(stderr), "ag-keys: <stdin>:1: approve "+panes[1]+": refused: stale") {
		t.Errorf("a refused popup press: the client shows\n%s\nnot %q; ag-keys said %q", client, want, stderr)
	}
}

// fourPanes adds windows 1 and 2 to session t and a session u, each
// running cat like window 0 (newTmux(t, env, "cat")), and returns the four
// panes and their ttys in tmux's order.
func (s *tserver) fourPanes() (panes, ttys []string) {
	s.t.Helper()
	s.run("new-window", "-d", "-t", "t:1", "cat")
	s.run("new-window", "-d", "-t", "t:2", "cat")
	s.run("new-session", "-d", "-s", "u", "-x", "120", "-y", "30", "cat")
	panes = strings.Fields(s.run("list-panes", "-a", "-F", "#{pane_id}"))
	ttys = strings.Fields(s.run("list-panes", "-a", "-F", "#{pane_tty}"))
	if len(panes) != 4 {
		s.t.Fatalf("panes %v", panes)
	}
	return panes, ttys
}

// waitClient waits for a client to attach (10 s) and returns its name.
func (s *tserver) waitClient() string {
	s.t.Helper()
	var name string
	for end := time.Now().Add(10 * time.Second); name == "" && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		name = s.run("list-clients", "-F", "#{client_name}")
	}
	if name == "" {
		s.t.Fatal("the client did not attach")
	}
	return name
}

// wantClientAt waits (10 s) for the client to show want: "session:window pane".
func (s *tserver) wantClientAt(want string) {
	s.t.Helper()
	var got string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if got = s.run("list-clients", "-F", "#{session_name}:#{window_index} #{pane_id}"); got == want {
			return
		}
	}
	s.t.Fatalf("client is at %q, want %q", got, want)
}
