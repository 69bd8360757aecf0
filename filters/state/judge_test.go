package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
)

// TestJudge: a reader believes the state file only while the ag-fold that
// keeps it runs and confirms it, and never shows a session whose process
// is gone; another host's sessions are not checked against local pids.
func TestJudge(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	live := map[int]bool{100: true, 200: true}
	j := Judge{Now: now, Host: hostname.Named("here"), Alive: func(pid int, heard time.Time) bool { return live[pid] }}
	writer := Writer{PID: 100, Host: "here", Check: 2 * time.Second}
	sessions := func() []event.Event {
		st := func(s, status string, pid int, host string) event.Event {
			return event.Event{Kind: event.State, Session: s, Status: status, PID: pid, Host: host, T: event.At(now.Add(-time.Hour))}
		}
		return []event.Event{
			st("alive", "waiting", 200, ""),
			st("dead", "waiting", 300, "here"),
			st("nopid", "working", 0, ""),
			st("remote", "working", 300, "there"),
			st("gone", "gone", 300, ""),
		}
	}
	for _, tc := range []struct {
		name   string
		file   File
		stale  string // what the live sessions are marked
		remote string // the remote session's mark, if not stale
	}{
		{"kept and confirmed", File{Writer: writer, Confirmed: now.Add(-3 * time.Second)}, "", ""},
		{"no writer recorded", File{}, StaleNoWriter, ""},
		{"writer gone", File{Writer: Writer{PID: 999, Host: "here"}, Confirmed: now}, StaleWriterGone, ""},
		{"writer frozen", File{Writer: writer, Confirmed: now.Add(-time.Minute)},
			"the ag-fold that keeps the state file has not confirmed it for 1m0s", ""},
		{"writer confirms nothing (--check 0)", File{Writer: Writer{PID: 100, Host: "here"}, Confirmed: now.Add(-time.Hour)}, "", ""},
		{"writer on another host: not checked by pid", File{Writer: Writer{PID: 999, Host: "there"}, Confirmed: now}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.file
			f.Sessions = sessions()
			f.Sessions[3].Stale = tc.remote
			j.Mark(&f)
			want := map[string][2]string{ // session → status, stale
				"alive":  {"waiting", tc.stale},
				"dead":   {"gone", ""},
				"nopid":  {"working", tc.stale},
				"remote": {"working", tc.stale},
				"gone":   {"gone", ""},
			}
			for _, s := range f.Sessions {
				if w := want[s.Session]; s.Status != w[0] || s.Stale != w[1] {
					t.Errorf("%s: status %q stale %q; want %q %q", s.Session, s.Status, s.Stale, w[0], w[1])
				}
			}
		})
	}
	// A mark the writer put there (a remote host gone silent) is kept.
	f := File{Writer: writer, Confirmed: now, Sessions: sessions()}
	f.Sessions[3].Stale = "host there silent for 2m"
	j.Mark(&f)
	if f.Sessions[3].Stale != "host there silent for 2m" || f.Sessions[0].Stale != "" {
		t.Errorf("writer's own marks: %+v", f.Sessions)
	}
}

// TestFileRoundTrip: the header comes back as written, with the file's
// modification time as its confirmation; Touch moves it.
func TestFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	w := Writer{PID: 42, Host: `bo"x`, Start: now.Add(-time.Minute), Check: 2 * time.Second}
	st := []event.Event{event.New(event.State, now, "claude", "a"), event.New(event.State, now, "codex", "b")}
	st[0].Pane = "%3"
	if err := Write(path, now, w, st); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Writer != w || !f.T.Equal(now) || len(f.Sessions) != 2 || f.Confirmed.IsZero() {
		t.Errorf("Load = %+v", f)
	}
	later := time.Now().Add(time.Hour).Truncate(time.Second)
	if err := Touch(path, later); err != nil {
		t.Fatal(err)
	}
	if f, _ = Load(path); !f.Confirmed.Equal(later) {
		t.Errorf("Confirmed after Touch = %v, want %v", f.Confirmed, later)
	}
	f, err = load(path, []byte(`"pane":"%3"`))
	if err != nil || len(f.Sessions) != 1 || f.Sessions[0].Session != "a" {
		t.Errorf("load for a pane = %+v, %v", f, err)
	}
	// A folder that is not there is an error, not a folder made.
	if err := Write(filepath.Join(t.TempDir(), "no", "s.json"), now, w, nil); err == nil {
		t.Errorf("Write into a missing folder succeeded")
	}
	// An older file with no writer reads as one.
	os.WriteFile(path, []byte("{\"v\":1,\"t\":\"2026-11-30T12:00:00.000Z\",\"sessions\":[\n]}\n"), 0o600)
	if f, err = Load(path); err != nil || f.Writer != (Writer{}) {
		t.Errorf("old file: %+v %v", f, err)
	}
	os.WriteFile(path, []byte(`{"v":1,"writer":{"pid":"x"},"sessions":[]}`), 0o600)
	if _, err = Load(path); err == nil || !strings.Contains(err.Error(), "state file") {
		t.Errorf("bad header: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("{\"v\":1,\"t\":\"2026-11-30T12:00:00.000Z\",\"writer\":{\"pid\":1,\"host\":\"h\",\"start\":\"2026-11-30T12:00:00.000Z\",\"check\":\"2s\"},\"sessions\":[\n{\"v\":1,\"t\":\"2026-11-30T12:00:00.000Z\",\"kind\":\"state\",\"session\":\"a\"}\n]}\n"))
	f.Add([]byte(`{"sessions":[`))
	f.Add([]byte(`{"writer":{"check":"-1x"},"sessions":[`))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err == nil && file == nil {
			t.Fatal("no file and no error")
		}
	})
}
