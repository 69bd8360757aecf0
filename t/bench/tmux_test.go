//go:build bench

package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTmuxPushLatency: how long from an event reaching ag-fold --tmux to
// tmux holding the new option value (what a status line shows at its next
// redraw). It polls tmux as fast as a client can, so the figure includes up
// to one poll (about a tmux round trip).
func TestTmuxPushLatency(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	dir, err := os.MkdirTemp("", "agl")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s")
	tm := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-u", "-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tm("-f", "/dev/null", "new-session", "-d", "-s", "l", "sleep 600")
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run(); os.RemoveAll(dir) })

	fold := exec.Command(bin("ag-fold"), "--tmux", "-S", sock, "--no-state", "--check", "0")
	in, err := fold.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	fold.Stdout, fold.Stderr = io.Discard, os.Stderr
	if err := fold.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); fold.Wait() })

	const n = 40
	var lat []time.Duration
	base := time.Now().UTC()
	for i := range n {
		kind, want := "turn.start", "working"
		if i%2 == 1 {
			kind, want = "turn.end", "done"
		}
		line := fmt.Sprintf(`{"v":1,"t":%q,"kind":%q,"agent":"claude","session":"s","src":"hook","id":"e%d","pane":"%%0"}`+"\n",
			base.Add(time.Duration(i)*time.Second).Format("2006-01-02T15:04:05.000Z"), kind, i)
		start := time.Now()
		if _, err := io.WriteString(in, line); err != nil {
			t.Fatal(err)
		}
		for tm("show-options", "-pqv", "-t", "%0", "@ag_status") != want {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("event %d: @ag_status never became %s", i, want)
			}
		}
		lat = append(lat, time.Since(start))
	}
	poll := measure(t, 2, 20, func() error { tm("show-options", "-pqv", "-t", "%0", "@ag_status"); return nil })
	slices.Sort(lat)
	t.Logf("event → tmux option: median %s, min %s, max %s (n=%d); one tmux poll: %s",
		round(lat[n/2]), round(lat[0]), round(lat[n-1]), n, poll)
}
