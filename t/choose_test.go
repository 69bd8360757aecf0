package t

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a client's screen output, written by script(1) while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestTmuxChooser presses the plugin's prefix-S in a real client (a pty
// from script(1), keys typed into it): a menu of the agent sessions, most
// urgent first, opens, and picking an entry focuses that pane, in another
// tmux session too.
func TestTmuxChooser(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1)")
	}
	work := t.TempDir()
	env := []string{"AG_DIR=" + work, "HOME=" + work}
	in := newTmux(t, env, "cat")
	panes, ttys := in.fourPanes()
	ago := func(d time.Duration) string { return time.Now().Add(-d).UTC().Format("2006-01-02T15:04:05.000Z") }
	session := func(pane, tty, members string) string {
		return fmt.Sprintf(`"pane":%q,"tty":%q,%s`, pane, tty, members)
	}
	writeStates(t, work,
		session(panes[1], ttys[1], `"cwd":"/src/web","status":"done","prompt":"add a table","since":"`+ago(time.Minute)+`"`),
		session(panes[2], ttys[2], `"cwd":"/src/api","branch":"main","status":"waiting","attention":"permission","tool":"Bash","text":"grep '#{x}' #[red]log","since":"`+ago(2*time.Minute)+`"`),
		session(panes[3], ttys[3], `"cwd":"/src/cli","status":"working","tool":"Bash","text":"go test ./...","since":"`+ago(time.Minute)+`"`),
		session("%99", "/dev/pts/99", `"cwd":"/src/old","status":"waiting","since":"`+ago(time.Hour)+`"`),       // no such pane
		session(panes[0], "/dev/pts/999", `"cwd":"/src/stale","status":"waiting","since":"`+ago(time.Hour)+`"`), // an older server's %0
	)
	plugin, err := filepath.Abs("../contrib/tmux/ag.tmux")
	if err != nil {
		t.Fatal(err)
	}
	in.run("set-option", "-g", "@ag_bin_dir", binDir)
	in.run("run-shell", plugin)

	// The client: tmux attach on a pty of script's, whose stdin is ours.
	client := exec.Command("script", "-qfec", "stty cols 150 rows 40; exec tmux -u -S "+in.sock+" attach -t t:0", "/dev/null")
	client.Env = append(withoutTMUX(os.Environ()), "TERM=xterm-256color", "LANG=C.UTF-8")
	keys, err := client.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var screen syncBuffer
	client.Stdout, client.Stderr = &screen, io.Discard
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		client.Process.Kill()
		client.Wait()
	}()
	in.waitClient()
	wantCurrent := in.wantClientAt
	press := func(k string) {
		t.Helper()
		if _, err := io.WriteString(keys, k); err != nil {
			t.Fatal(err)
		}
	}
	// waitScreen waits for the client to draw text after mark bytes of output.
	waitScreen := func(mark int, text ...string) {
		t.Helper()
		var s string
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			s = screenText(screen.String()[mark:])
			ok := true
			for _, x := range text {
				ok = ok && strings.Contains(s, x)
			}
			if ok {
				return
			}
		}
		t.Fatalf("the client never showed %q; it drew:\n%s", text, strings.ReplaceAll(s, "\x1b", "^["))
	}
	wantCurrent("t:0 " + panes[0])

	// The menu: the waiting session first, then working, then done; the
	// gone pane and the older server's %0 are not in it; #{…} and #[…] shown
	// as they are, not expanded by tmux.
	mark := len(screen.String())
	press("\x02S")
	waitScreen(mark, "ag: 3 sessions", "AGENT", "⏳ waiting", "api:main", "Bash: grep '#{x}' #[red]log", "cli", "web")
	if s := screen.String()[mark:]; strings.Contains(s, "stale") {
		t.Errorf("the menu offers a pane that is not the session's:\n%q", s)
	}
	press("2") // the working session, in tmux session u
	wantCurrent("u:0 " + panes[3])

	mark = len(screen.String())
	press("\x02S")
	waitScreen(mark, "ag: 3 sessions")
	press("1")
	wantCurrent("t:2 " + panes[2])

	// Escape closes the menu; nothing moves.
	mark = len(screen.String())
	press("\x02S")
	waitScreen(mark, "ag: 3 sessions")
	press("\x1b")
	time.Sleep(300 * time.Millisecond)
	press("\x02S")
	time.Sleep(300 * time.Millisecond)
	press("3")
	wantCurrent("t:1 " + panes[1])

	// No session in any pane: a message, not a menu.
	writeStates(t, work)
	mark = len(screen.String())
	press("\x02S")
	waitScreen(mark, "ag: focus refused: no agent session in a tmux pane")
	wantCurrent("t:1 " + panes[1])
}

// screenText is a terminal's output with its escape sequences taken out:
// a cursor move leaves a blank, so a line tmux drew in pieces reads apart.
func screenText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[':
			i += 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
			if i < len(s) && s[i] != 'm' {
				b.WriteByte(' ')
			}
		case s[i] == 0x1b && i+2 < len(s) && (s[i+1] == '(' || s[i+1] == ')'):
			i += 2
		case s[i] == 0x1b:
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
