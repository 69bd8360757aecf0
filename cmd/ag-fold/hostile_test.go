package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/safetext/safetexttest"
)

// FuzzGlanceHostile: ag-fold --snapshot --format, a prompt's line for
// every agent at once, prints what sessions hold (and other hosts' names)
// with no escape, control or bidi character, whatever they hold.
func FuzzGlanceHostile(f *testing.F) {
	for _, s := range safetexttest.Hostile {
		f.Add(s)
	}
	format := `{{.Summary}}|{{range .Sessions}}{{.Agent}}{{.Session}}{{.Tool}}{{.Text}}{{.Cwd}}{{.Model}}{{.Host}}{{.Prompt}}{{range .Limits}}{{.Window}}{{end}}{{end}}`
	f.Fuzz(func(t *testing.T, s string) {
		e := event.New(event.State, time.Now(), s, s)
		e.Src, e.Status, e.Attention, e.Tool, e.Text, e.Cwd, e.Model, e.Prompt = event.SrcFold, event.StatusWaiting, event.AttnPermission, s, s, s, s, s
		e.Host, e.Limits = "devbox", []event.Limit{{Window: s}}
		var stdout, stderr lockedBuffer
		fo := newFolder(&stdout, &stderr, func(string) string { return "" }, time.Now)
		code := fo.main(context.Background(), []string{"--snapshot", "--check", "0", "--format", format},
			strings.NewReader(string(event.AppendJSON(nil, &e))))
		line, ok := strings.CutSuffix(stdout.String(), "\n")
		if code != 0 || !ok {
			t.Fatalf("exit %d, %q, %s", code, stdout.String(), stderr.String())
		}
		if i, c := safetexttest.Find(line, false); i >= 0 {
			t.Fatalf("%s at byte %d of %q", c, i, line)
		}
	})
}

// TestDatesAheadFreezeNothing: a state dated 9999-12-31 froze its session
// for good, and so did one hook event stamped an hour ahead (a clock
// stepped back): every later event, the real wait included, was ignored.
func TestDatesAheadFreezeNothing(t *testing.T) {
	now := time.Now().UTC()
	stamp := func(t time.Time) string { return t.Format(event.Layout) }
	in := fmt.Sprintf(`{"v":1,"t":%q,"kind":"state","agent":"claude","session":"r1","src":"fold","host":"devbox","status":"working","gen":2,"token":"1.2"}
{"v":1,"t":"9999-12-31T23:59:59.000Z","kind":"state","agent":"claude","session":"r1","src":"fold","host":"devbox","status":"idle","gen":3,"token":"1.3"}
{"v":1,"t":%q,"kind":"state","agent":"claude","session":"r1","src":"fold","host":"devbox","status":"waiting","attention":"permission","gen":4,"token":"1.4"}
{"v":1,"t":%q,"kind":"session.start","agent":"claude","session":"l1","src":"hook","id":"a"}
{"v":1,"t":%q,"kind":"turn.start","agent":"claude","session":"l1","src":"hook","id":"b"}
{"v":1,"t":%q,"kind":"wait","agent":"claude","session":"l1","src":"hook","id":"c","attention":"permission","tool":"Bash"}
`, stamp(now.Add(-10*time.Second)), stamp(now), stamp(now.Add(-10*time.Second)), stamp(now.Add(time.Hour)), stamp(now))
	r := runFold(t, t.TempDir(), strings.NewReader(in), nil, "--snapshot", "--check", "0")
	got := map[string]string{}
	for _, s := range r.states {
		got[s.Session] = s.Status
	}
	if got["r1"] != "waiting" || got["l1"] != "waiting" {
		t.Errorf("states %v; want both waiting (stderr %q)", got, r.stderr)
	}
	if strings.Count(r.stderr, "ahead of this clock: dated as the events before it") != 2 {
		t.Errorf("stderr %q; want one line each for devbox and this host", r.stderr)
	}
}
