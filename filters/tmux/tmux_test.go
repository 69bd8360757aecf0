package tmux

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLocale: in a locale that is not UTF-8 (a systemd user service sets
// none), tmux prints tabs and non-ASCII as "_" unless the client says it
// takes UTF-8. Fields separated by tabs and the agents' glyphs must come
// back as they are.
func TestLocale(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	t.Setenv("LC_ALL", "C")
	t.Setenv("LC_CTYPE", "")
	t.Setenv("LANG", "")
	c := &Client{Socket: filepath.Join(t.TempDir(), "s")}
	ctx := context.Background()
	if _, err := c.Run(ctx, "-f", "/dev/null", "new-session", "-d", "-s", "loc", "sleep 60"); err != nil {
		t.Fatal(err)
	}
	defer c.Run(ctx, "kill-server")
	lines, err := c.ListPanes(ctx, "#{pane_id}\t#{session_name} ❯ ⏵⏵")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || len(lines[0]) < 4 || lines[0][2] != '\t' || lines[0][len(lines[0])-len("loc ❯ ⏵⏵"):] != "loc ❯ ⏵⏵" {
		t.Errorf("list-panes under LC_ALL=C: %q", lines)
	}
}

// TestNoServer: a socket nobody listens on is ErrNoServer.
func TestNoServer(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	c := &Client{Socket: filepath.Join(t.TempDir(), "none")}
	if _, err := c.ListPanes(context.Background(), "#{pane_id}"); !errors.Is(err, ErrNoServer) {
		t.Errorf("ListPanes with no server: %v, want ErrNoServer", err)
	}
}
