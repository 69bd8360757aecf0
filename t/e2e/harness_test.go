//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// fatalTB records a Fatalf and ends the goroutine, as testing.T does, so
// the harness's own failures can be asserted.
type fatalTB struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.msg = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}

// fails runs fn on its own goroutine and returns what it Fatalf'd ("" if nothing).
func fails(t *testing.T, fn func(tb testing.TB)) string {
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); fn(tb) }()
	<-done
	return tb.msg
}

func states(w io.Writer, session string, statuses ...string) {
	for i, st := range statuses {
		e := event.New(event.State, time.Unix(int64(1000+i), 0), "claude", session)
		e.Src, e.Status = event.SrcFold, st
		w.Write(event.Marshal(&e))
	}
}

func TestSessionExpect(t *testing.T) {
	for _, tc := range []struct {
		name  string
		feed  []string
		want  []string
		fails string // substring of the failure, "" = passes
	}{
		{"exact", []string{"working", "working", "done"}, []string{"working", "done"}, ""},
		{"leading idle", []string{"idle", "working", "done"}, []string{"working", "done"}, ""},
		{"idle wanted", []string{"idle"}, []string{"idle"}, ""},
		{"detour", []string{"working", "waiting", "working", "idle"}, []string{"working", "waiting", "idle"},
			"status went — → working → waiting → working, want — → working → waiting → idle"},
		{"never", []string{"working"}, []string{"working", "done"}, "stream ended"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w := io.Pipe()
			go func() {
				states(w, "other", "failed") // another session: ignored
				states(w, "s1", tc.feed...)
				w.Close()
			}()
			s := Watch("test", r).Session("claude", "s1")
			msg := fails(t, func(tb testing.TB) { s.Expect(tb, 2*time.Second, tc.want...) })
			if tc.fails == "" && msg != "" {
				t.Errorf("failed: %s", msg)
			}
			if tc.fails != "" && !strings.Contains(msg, tc.fails) {
				t.Errorf("failure %q, want it to contain %q", msg, tc.fails)
			}
		})
	}
}

func TestWatcherWaitForAndAwait(t *testing.T) {
	r, w := io.Pipe()
	wt := Watch("test", r)
	go func() {
		states(w, "a", "working")
		time.Sleep(50 * time.Millisecond)
		w.Write([]byte("not json\n"))
		states(w, "b", "done")
	}()
	e := wt.WaitFor(t, "of b", 2*time.Second, func(e *event.Event) bool { return e.Session == "b" })
	if e.Status != "done" || wt.Cursor() != 2 {
		t.Errorf("got %s at cursor %d", event.Marshal(&e), wt.Cursor())
	}
	// Await looks back before the cursor.
	if e := wt.Await(t, "of a", time.Second, func(e *event.Event) bool { return e.Session == "a" }); e.Status != "working" {
		t.Errorf("Await: %s", event.Marshal(&e))
	}
	if bad := wt.Bad(); len(bad) != 1 || !strings.Contains(bad[0], "not json") {
		t.Errorf("bad lines %q", bad)
	}
	msg := fails(t, func(tb testing.TB) {
		wt.WaitFor(tb, "that never comes", 200*time.Millisecond, func(*event.Event) bool { return false })
	})
	if !strings.Contains(msg, "no event that never comes within 200ms") {
		t.Errorf("timeout message %q", msg)
	}
	w.Close()
}

func TestDBus(t *testing.T) {
	t.Parallel()
	h := New(t)
	addr := h.StartDBus()
	if !strings.HasPrefix(addr, "unix:path="+h.Root) {
		t.Errorf("bus address %q", addr)
	}
	out := h.Run(10*time.Second, "dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus",
		"/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames")
	if !strings.Contains(out, `"org.freedesktop.DBus"`) {
		t.Errorf("ListNames on the private bus:\n%s", out)
	}
}

func TestPipeline(t *testing.T) {
	h := New(t)
	var lines []string
	for i, st := range []string{"working", "done"} {
		e := event.New(event.State, time.Unix(int64(1000+i), 0), "claude", "s1")
		e.Src, e.Status = event.SrcFold, st
		lines = append(lines, strings.TrimSpace(string(event.Marshal(&e))))
	}
	// Stage one writes, then stays up like a follower; stage two passes through.
	script := "printf '%s\\n' '" + strings.Join(lines, "' '") + "'; exec sleep 60"
	pl := h.StartPipeline([]string{"/bin/sh", "-c", script}, []string{"/bin/cat"})
	s := pl.Out.Session("claude", "s1")
	s.Expect(t, 5*time.Second, "working", "done")
	h.WaitFile(pl.Outputs[0], 5*time.Second, lines...)
	if ok, err := pl.Stages[1].Exited(); ok {
		t.Errorf("cat exited early: %v", err)
	}
}
