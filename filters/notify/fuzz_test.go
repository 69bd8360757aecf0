package notify

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
)

// FuzzPolicy feeds the notifier what a broker anyone may publish to can
// carry: no panic, every note fit for a terminal or a banner (no control
// characters but newlines in the body), and the same states again change
// nothing.
func FuzzPolicy(f *testing.F) {
	f.Add([]byte(`{"v":1,"t":"2026-11-30T12:00:00Z","kind":"state","agent":"claude","session":"s","host":"devbox","status":"waiting","attention":"permission","tool":"Bash","text":"rm -rf /\u001b]0;x\u0007","gen":2,"token":"1.2"}
{"v":1,"t":"2026-11-30T12:00:01Z","kind":"host.down","session":"","host":"devbox"}
{"v":1,"t":"2026-11-30T12:00:00Z","kind":"state","agent":"claude","session":"s","host":"devbox","status":"waiting","attention":"permission","tool":"Bash","gen":2,"token":"1.2"}
{"v":1,"t":"2026-11-30T11:00:00Z","kind":"state","agent":"claude","session":"s","host":"devbox","status":"working","gen":1,"token":"1.1","stale":"lost touch with devbox"}`))
	f.Add([]byte(`{"v":1,"t":"2026-11-30T12:00:00Z","kind":"state","agent":"claude","session":"s","host":"devbox","status":"waiting","attention":"question","gen":2,"token":"1.2"}
{"v":1,"t":"2026-11-30T12:00:00Z","kind":"state","agent":"claude","session":"s","host":"laptop","status":"done","gen":3,"token":"1.3"}
{"v":1,"t":"2026-11-30T12:00:00Z","kind":"state","agent":"claude","session":"s","status":"working","gen":2}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		p := New(Config{Self: hostname.Named("laptop"), Agents: agents, Debounce: time.Second, Cooldown: time.Minute})
		now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
		var events []event.Event
		for _, line := range bytes.Split(in, []byte("\n")) {
			var e event.Event
			if event.Decode(line, &e) == nil && e.Validate() == nil {
				events = append(events, e)
			}
		}
		check := func(ds []Decision) {
			for _, d := range ds {
				n := d.Note
				for _, s := range []string{n.Title, n.Subtitle} {
					if strings.ContainsFunc(s, unicode.IsControl) {
						t.Fatalf("control character in %q", s)
					}
				}
				if strings.ContainsFunc(n.Body, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }) {
					t.Fatalf("control character in the body %q", n.Body)
				}
			}
		}
		for i := range events {
			check(p.Observe(now, &events[i]))
			now = now.Add(100 * time.Millisecond)
			check(p.Due(now))
		}
		for i := range events {
			if events[i].Kind == event.HostDown || events[i].Stale != "" {
				return // news about a link applies as it comes, also again
			}
		}
		for i := range events {
			if ds := p.Observe(now, &events[i]); len(ds) > 0 && events[i].Kind == event.State {
				t.Fatalf("the same state again did %s: %s", show(ds), event.Marshal(&events[i]))
			}
		}
	})
}
