package fold

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// FuzzFold folds arbitrary lines (and ticks between them): no panics, and
// every state written keeps the invariants (token = since.gen, gen and
// since never go back, attention exactly while waiting, pending only while
// working).
func FuzzFold(f *testing.F) {
	ins, _ := filepath.Glob("testdata/*.ndjson")
	for _, in := range ins {
		b, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(30))
	}
	f.Add([]byte(`{"v":1,"t":"2026-05-01T12:00:00Z","kind":"wait","agent":"claude","session":"","src":"pane","pane":"%1","attention":"plan"}`), uint16(1))
	// What a broker anyone can publish to may carry: other hosts' states,
	// host.down, hosts that are not names.
	f.Add([]byte(`{"v":1,"t":"2026-05-01T12:00:00Z","kind":"state","agent":"claude","session":"s","src":"fold","host":"devbox","pane":"%1","status":"waiting","attention":"permission","gen":2,"token":"x"}
{"v":1,"t":"2026-05-01T12:00:01Z","kind":"host.down","session":"","host":"devbox"}
{"v":1,"t":"2026-05-01T12:00:00Z","kind":"state","agent":"claude","session":"s","src":"fold","host":"devbox","pane":"%1","status":"waiting","attention":"permission","gen":2,"token":"x"}
{"v":1,"t":"2026-05-01T12:00:02Z","kind":"state","agent":"claude","session":"s","src":"fold","host":"x;#(id)","status":"bogus"}
{"v":1,"t":"2026-05-01T12:00:03Z","kind":"wait","agent":"claude","session":"s","src":"hook","host":"devbox","pane":"%1","attention":"permission"}`), uint16(2))
	f.Fuzz(func(t *testing.T, in []byte, tickEvery uint16) {
		fo := &folder{t: t, Folder: New(Config{SeenIDs: 16}), last: map[string]event.Event{}}
		var e event.Event
		var newest time.Time
		for i, line := range bytes.Split(in, []byte("\n")) {
			if event.Decode(line, &e) != nil || e.Validate() != nil {
				continue
			}
			if e.T.After(newest) {
				newest = e.T.Time
			}
			fo.apply(&e)
			if tickEvery > 0 && i%int(tickEvery) == 0 {
				for _, s := range fo.Tick(newest.Add(time.Duration(tickEvery) * time.Second)) {
					fo.check(s)
				}
			}
		}
		for _, s := range fo.States() {
			if s.Host != "" {
				fo.check(s) // another host's: passed on as it came
				continue
			}
			if err := invariants(s, event.Event{}); err != nil {
				t.Fatalf("final state: %v: %s", err, event.Marshal(&s))
			}
		}
	})
}
