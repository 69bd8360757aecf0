package tmux

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestFollows(t *testing.T) {
	for v, want := range map[string]bool{
		"3.3a": true, "3.2": true, "3.2a": true, "3.10": true, "4.0": true, "next-3.6": true,
		"3.1c": false, "3.0a": false, "2.9": false, "1.8": false,
		"master": true, "openbsd-7.4": true, "3.2-rc3": true,
	} {
		if got := Follows(v); got != want {
			t.Errorf("Follows(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestSocketPath(t *testing.T) {
	uid := "tmux-" + strconv.Itoa(os.Getuid())
	for _, c := range []struct {
		socket, name string
		tmux, tmpdir string
		want         string
	}{
		{"/x/s", "", "/other,1,2", "", "/x/s"},
		{"", "work", "/other,1,2", "", "/tmp/" + uid + "/work"},
		{"", "", "/run/t/default,123,4", "", "/run/t/default"},
		{"", "", "", "", "/tmp/" + uid + "/default"},
		{"", "", "", "/run/user/1", "/run/user/1/" + uid + "/default"},
		{"", "w", "", "/run/user/1/", "/run/user/1/" + uid + "/w"},
	} {
		t.Setenv("TMUX", c.tmux)
		t.Setenv("TMUX_TMPDIR", c.tmpdir)
		cl := &Client{Socket: c.socket, Name: c.name}
		if got := cl.SocketPath(); got != c.want {
			t.Errorf("-S %q -L %q, TMUX=%q TMUX_TMPDIR=%q: %q, want %q", c.socket, c.name, c.tmux, c.tmpdir, got, c.want)
		}
	}
}

// TestSocketWatch: a watch on a socket whose folders are not there yet
// hints when a server makes them and its socket; a server's end and a
// new one on the same socket hint again; nothing else in the folder
// does.
func TestSocketWatch(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	base, err := os.MkdirTemp("", "agsw")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	t.Setenv("TMUX_TMPDIR", base)
	c := &Client{Name: "w"}
	sock := c.SocketPath()
	w, err := WatchSocket(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	hinted := func(what string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case <-w.Hint():
				if Listening(sock) {
					return
				}
			case <-deadline:
				t.Fatalf("no hint %s", what)
			}
		}
	}
	if Listening(sock) {
		t.Fatal("listening before any server")
	}
	ctx := context.Background()
	start := func() {
		if _, err := c.Run(ctx, "-f", "/dev/null", "new-session", "-d", "cat"); err != nil {
			t.Fatal(err)
		}
	}
	start()
	defer c.Run(ctx, "kill-server")
	hinted("for a first server (tmux-UID made, then the socket)")
	if _, err := c.Run(ctx, "kill-server"); err != nil {
		t.Fatal(err)
	}
	for Listening(sock) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(sock), "other"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.Hint():
		// One may be pending from the server's end (the socket's mode).
	case <-time.After(200 * time.Millisecond):
	}
	select {
	case <-w.Hint():
		t.Error("a hint for another file")
	case <-time.After(300 * time.Millisecond):
	}
	start()
	hinted("for a server started again on the same socket")
}

// TestAttachNoServer: a control client never starts a server, and says
// why it could not attach.
func TestAttachNoServer(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	c := shortSocket(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Attach(ctx, "$0", NewNotes()); err == nil {
		t.Fatal("attached with no server")
	}
	if _, err := os.Stat(c.Socket); err == nil {
		t.Fatal("the attach started a server")
	}
	if _, err := c.Run(ctx, "-f", "/dev/null", "new-session", "-d", "cat"); err != nil {
		t.Fatal(err)
	}
	defer c.Run(context.Background(), "kill-server")
	_, err := c.Attach(ctx, "$9", NewNotes())
	if err == nil || !strings.Contains(err.Error(), "can't find session") {
		t.Fatalf("attach to no such session: %v", err)
	}
}

// shortSocket is a Client on a socket in a folder of its own under the
// temporary folder, removed at the end: t.TempDir's paths can pass the
// length a socket's path may have.
func shortSocket(t *testing.T) *Client {
	t.Helper()
	dir, err := os.MkdirTemp("", "agt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return &Client{Socket: filepath.Join(dir, "s")}
}
