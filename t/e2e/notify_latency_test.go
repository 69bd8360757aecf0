//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// TestClaudeNotifyLatency measures how long a real Claude Code wait takes
// to become a desktop notification: from the PermissionRequest hook's
// `wait` event (its t in the spool, stamped when ag-hook ran) to notifyd
// receiving the Notify call, through ag-tail --follow, ag-fold and
// ag-notify. The waits are answered alternately from the notification
// (ag-keys types "1") and in the pane (ag-notify retracts the
// notification). It runs alone (not parallel) so the figures are the
// pipeline's, not the other agents'. --cooldown 0: every wait of the one
// session is notified (the default keeps a session quiet for 60 s).
func TestClaudeNotifyLatency(t *testing.T) {
	const waits = 8
	w := newNotifyWorld(t, "--cooldown", "0")
	h := w.h
	panes, sessions := w.claude(t, "latency")
	p, s := panes[0], sessions[0]

	var lat []time.Duration
	for i := range waits {
		cmd := fmt.Sprintf("echo wait%d > wait%d.txt", i, i)
		o := w.waitNotified(t, p, s, cmd)
		hook := w.spoolWait(t, s.ID, cmd)
		d := o.note.Time().Sub(hook.T.Time)
		lat = append(lat, d)
		w.checkOffer(t, o, p)
		p.WaitText(10*time.Second, ClaudePermission)
		if i%2 == 0 {
			_, k := w.pressed(t, o, p, "approve")
			if k.Status != "sent" || k.Text != "1" {
				t.Fatalf("wait %d: keys event status %q text %q reason %q; want sent \"1\"", i, k.Status, k.Text, k.Reason)
			}
		} else {
			p.Keys("1")
			// Answered in the pane: ag-notify takes the notification back.
			c, _ := w.nd.WaitCall(o.index+1, fmt.Sprintf("CloseNotification %d", o.note.ID), 15*time.Second, func(c Call) bool {
				return c.Call == "CloseNotification" && c.ID == o.note.ID
			})
			if !c.Live {
				t.Errorf("wait %d: CloseNotification %d for a notification no longer shown", i, o.note.ID)
			}
			r := w.pl.Out.Await(t, "notify retract for token "+o.wait.Token, 10*time.Second, func(e *event.Event) bool {
				return e.Kind == event.Notify && e.Action == "retract" && e.Token == o.wait.Token
			})
			if r.Reason != "resolved" {
				t.Errorf("wait %d: retract reason %q; want resolved", i, r.Reason)
			}
		}
		s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
		if b, err := os.ReadFile(filepath.Join(h.Project, fmt.Sprintf("wait%d.txt", i))); err != nil || string(b) != fmt.Sprintf("wait%d\n", i) {
			t.Errorf("wait %d: the approved command did not run: %q, %v", i, b, err)
		}
		if slices.Contains(w.nd.Live(), o.note.ID) {
			t.Errorf("wait %d: notification %d still shown after the answer", i, o.note.ID)
		}
		if n := w.notifies(0, cmd); n != 1 {
			t.Errorf("wait %d: %d notifications with Approve/Deny; want 1", i, n)
		}
		t.Logf("wait %d: hook → Notify %s", i, d.Round(100*time.Microsecond))
	}
	median, line := latencies("hook `wait` → Notify received", lat)
	t.Log(line)
	if median >= 100*time.Millisecond {
		t.Errorf("median hook → Notify latency %s; budget < 100ms", median)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// spoolWait is the PermissionRequest hook's wait event for cmd in the spool.
func (w *notifyWorld) spoolWait(t *testing.T, session, cmd string) event.Event {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.h.AGDir, "spool.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	var found []event.Event
	for _, line := range strings.Split(string(b), "\n") {
		var e event.Event
		if event.Decode([]byte(line), &e) == nil && e.Kind == event.Wait && e.Src == event.SrcHook &&
			e.Session == session && e.Text == cmd {
			found = append(found, e)
		}
	}
	if len(found) == 0 {
		t.Fatalf("no hook wait event for %q in the spool", cmd)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].T.Before(found[j].T.Time) })
	return found[0]
}
