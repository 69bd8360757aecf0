package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/notify"
)

func TestOSCSequences(t *testing.T) {
	n := &notify.Note{Agent: "claude", Session: "s1", Title: "Claude Code · a;b:main", Subtitle: "Has a question", Body: "Which\ndatabase?"}
	id := "ag-" + event.MakeID("claude", "s1")
	tests := []struct{ kind, want string }{
		{"9", "\x1b]9;Claude Code · a;b:main — Has a question: Which database?\x07"},
		{"777", "\x1b]777;notify;Claude Code · a,b:main;Has a question: Which database?\x07"},
		{"99", "\x1b]99;i=" + id + ":d=0:p=title;Claude Code · a;b:main\x1b\\" + "\x1b]99;i=" + id + ":d=1:p=body;Has a question: Which database?\x1b\\"},
	}
	for _, tc := range tests {
		if got := oscSeq(tc.kind, n); got != tc.want {
			t.Errorf("oscSeq(%s) = %q; want %q", tc.kind, got, tc.want)
		}
	}
	if got, want := passthrough("\x1b]9;x\x07"), "\x1bPtmux;\x1b\x1b]9;x\x07\x1b\\"; got != want {
		t.Errorf("passthrough = %q; want %q", got, want)
	}
	if got, want := osc99Close(n), "\x1b]99;i="+id+":p=close;\x1b\\"; got != want {
		t.Errorf("osc99Close = %q; want %q", got, want)
	}
}

// --osc-tty: the sequence lands in that file, wrapped when ag-notify runs
// inside tmux; kitty's can be retracted.
func TestOSCTTY(t *testing.T) {
	for _, tc := range []struct {
		name, kind, tmux string
		want             string
	}{
		{"plain", "9", "", "\x1b]9;Claude Code · ag:main — Needs permission: Bash: rm -rf build\x07"},
		{"in tmux", "9", "/tmp/tmux-1/default,1,0", "\x1bPtmux;\x1b\x1b]9;Claude Code · ag:main — Needs permission: Bash: rm -rf build\x07\x1b\\"},
		{"kitty, retracted", "99", "", "\x1b]99;i=ag-" + event.MakeID("claude", "s1") + ":d=0:p=title;Claude Code · ag:main\x1b\\" +
			"\x1b]99;i=ag-" + event.MakeID("claude", "s1") + ":d=1:p=body;Needs permission: Bash: rm -rf build\x1b\\" +
			"\x1b]99;i=ag-" + event.MakeID("claude", "s1") + ":p=close;\x1b\\"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tty := filepath.Join(t.TempDir(), "tty")
			if err := os.WriteFile(tty, nil, 0o600); err != nil { // stands in for a terminal: never created
				t.Fatal(err)
			}
			p := start(t, map[string]string{"TMUX": tc.tmux}, "--backend", "osc", "--osc", tc.kind, "--osc-tty", tty, "-S", shortDir(t)+"/no-tmux")
			p.send(state("s1", "waiting", "permission", "1.1"))
			if d := p.next(event.Notify); d.Ref != tty {
				t.Errorf("notify event = %+v; want ref %s", d, tty)
			}
			p.send(state("s1", "working", "", "2.2"))
			p.stop()
			if got, _ := os.ReadFile(tty); string(got) != tc.want {
				t.Errorf("tty got %q; want %q", got, tc.want)
			}
		})
	}
}
