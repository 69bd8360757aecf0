package t

// What an agent or its model writes, shown by ag in a real tmux with
// set-clipboard on: the prompt segment, the table and ag::line printed in a
// pane, the segment in status-right, ag-fold's tmux options and ag-notify's
// tmux message. Nothing reaches the paste buffer (OSC 52), retitles the
// pane, styles the status line or is expanded by tmux.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostileTool is the tool name of issue 28: an OSC 52 that writes
// "pwned" to the clipboard, a title change, a tmux style and a format.
const hostileTool = "Bash\x1b]52;c;cHduZWQ=\a\x1b]0;TITLE\a#[fg=red]X#{pane_current_path}\u202eY"

func TestHostileTmux(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1)")
	}
	work := t.TempDir()
	path := binDir + string(os.PathListSeparator) + os.Getenv("PATH")
	env := []string{"AG_DIR=" + work, "HOME=" + work, "LANG=C.UTF-8", "PATH=" + path}
	s := newTmux(t, env)
	s.run("set-option", "-g", "set-clipboard", "on")
	s.run("set-option", "-g", "status-interval", "1")
	// #() jobs run with the server's global environment.
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		s.run("set-environment", "-g", k, v)
	}
	s.run("set-option", "-g", "status-right-length", "200")
	s.run("set-option", "-g", "status-right", "[#(ag-detect --pane --for-tmux #{pane_id})]")
	s.run("new-window", "-t", "t:1", "-e", "AG_DIR="+work, "-e", "PATH="+path, "-e", "LANG=C.UTF-8", "sh")
	pane := s.run("display-message", "-p", "-t", "t:1", "#{pane_id}")
	title := s.run("display-message", "-p", "-t", pane, "#{pane_title}")
	tool, _ := json.Marshal(hostileTool)
	writeStates(t, work, `"pane":"`+pane+`","status":"waiting","attention":"permission","cwd":"/src/`+string(tool[1:len(tool)-1])+
		`","tool":`+string(tool)+`,"text":`+string(tool))

	// Printed into the pane: the segment, the table, ag::line.
	s.waitPrompt(pane, func(l string) bool { return strings.TrimSpace(l) != "" })
	s.typeLine(pane, "ag-detect --pane; ag-fold --snapshot --table; ag-fold --snapshot --jq ag::line -r; echo EN''D")
	s.waitPrompt(pane, func(string) bool { return strings.Contains(s.run("capture-pane", "-p", "-t", pane), "END") })
	screen := s.run("capture-pane", "-p", "-t", pane)
	if !strings.Contains(screen, "claude ⏳ Bash]52;c;cHduZWQ=]0;TITLE#[fg=red]X") {
		t.Errorf("the segment is not on the screen as text:\n%s", screen)
	}
	checkUntouched := func(when string) {
		t.Helper()
		if out, err := exec.Command("tmux", "-S", s.sock, "list-buffers", "-F", "#{buffer_sample}").CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("%s: the paste buffers hold %q (%v): an OSC 52 got through", when, out, err)
		}
		if got := s.run("display-message", "-p", "-t", pane, "#{pane_title}"); got != title {
			t.Errorf("%s: the pane's title is %q, was %q", when, got, title)
		}
	}
	checkUntouched("printed in the pane")

	// ag-fold's options: no control or bidi character, every # doubled.
	push := exec.Command(filepath.Join(binDir, "ag-fold"), "--snapshot", "--tmux", "-S", s.sock)
	push.Env = append(withoutTMUX(os.Environ()), env...)
	if out, err := push.CombinedOutput(); err != nil {
		t.Fatalf("ag-fold --snapshot --tmux: %v: %s", err, out)
	}
	if got, want := s.show("p", pane, "@ag_tool"), "Bash]52;c;cHduZWQ=]0;TITLE##[fg=red]X##{pane_current_path}Y"; got != want {
		t.Errorf("@ag_tool = %q, want %q", got, want)
	}

	// A client attached to the pane's window: status-right shows the
	// segment as text, and ag-notify's message on it does no harm.
	s.run("select-window", "-t", "t:1")
	typescript := filepath.Join(work, "typescript")
	cl := exec.Command("script", "-qfec", "stty cols 200 rows 30; exec tmux -S "+s.sock+" attach -t t", typescript)
	cl.Env = append(withoutTMUX(os.Environ()), "TERM=xterm-256color", "LANG=C.UTF-8")
	keyboard, err := cl.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { keyboard.Close(); cl.Process.Kill(); cl.Wait() })
	seen := func(text string) bool {
		b, _ := os.ReadFile(typescript)
		return strings.Contains(string(b), text)
	}
	for end := time.Now().Add(10 * time.Second); !seen("[claude ⏳ Bash]52;c;cHduZWQ=]0;TITLE#[fg=red]…]"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			b, _ := os.ReadFile(typescript)
			t.Fatalf("status-right never showed the segment as text; the client's terminal got:\n%q", b)
		}
		exec.Command("tmux", "-S", s.sock, "refresh-client", "-S").Run()
	}

	notify := exec.Command(filepath.Join(binDir, "ag-notify"), "--backend", "tmux", "-S", s.sock, "--no-quiet")
	notify.Env = append(withoutTMUX(os.Environ()), env...)
	st := `{"v":1,"t":"` + time.Now().UTC().Format("2006-01-02T15:04:05.000Z") + `","kind":"state","agent":"claude","session":"n1","src":"fold","pane":"` +
		pane + `","status":"waiting","attention":"permission","tool":` + string(tool) + `,"text":` + string(tool) + `,"gen":1,"token":"1.1"}` + "\n"
	notify.Stdin = strings.NewReader(st)
	out, err := notify.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"backend":"tmux"`) {
		t.Fatalf("ag-notify --backend tmux: %v: %s", err, out)
	}
	for end := time.Now().Add(5 * time.Second); !seen("Needs permission: Bash]52;c;cHduZWQ=]0;TITLE#[fg=red]X"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			b, _ := os.ReadFile(typescript)
			t.Fatalf("the tmux message never showed as text; the client's terminal got:\n%q", b)
		}
	}
	b, _ := os.ReadFile(typescript)
	for _, bad := range []string{"\x1b]52;c;cHduZWQ", "\u202e"} {
		if strings.Contains(string(b), bad) {
			t.Errorf("the client's terminal got %q", bad)
		}
	}
	checkUntouched("status line and message drawn")
}
