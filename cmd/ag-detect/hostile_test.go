package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/safetext/safetexttest"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/filters/tmpl"
)

// everyField is a --format that prints every field a segment template
// sees, the limits' windows too.
func everyField() string {
	var b strings.Builder
	for _, n := range tmpl.FieldNames(segmentData{}) {
		b.WriteString("{{" + n + "}}|")
	}
	return b.String() + "{{range .Limits}}{{.Window}}{{end}}"
}

// FuzzSegment: whatever an agent or its model wrote into a state, the
// prompt segment — the default one and a --format showing every field —
// prints no escape, control or bidi character, one line; with --for-tmux
// no # tmux would read.
func FuzzSegment(f *testing.F) {
	for _, s := range safetexttest.Hostile {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Setenv("AG_DIR", dir)
	f.Setenv("TMUX_PANE", "%3")
	format := everyField()
	f.Fuzz(func(t *testing.T, s string) {
		e := event.New(event.State, time.Now(), s, s)
		e.Src, e.Pane, e.Status, e.Attention = event.SrcFold, "%3", event.StatusWaiting, event.AttnPermission
		e.Tool, e.Text, e.Cwd, e.Branch, e.Model, e.Run, e.TTY, e.ToolID = s, s, s, s, s, s, s, s
		e.Reason, e.Argv0, e.Transcript, e.Sub, e.Prompt, e.Token, e.Stale = s, s, s, s, s, s, ""
		e.Limits = []event.Limit{{Window: s, UsedPct: 1}}
		if err := state.Write(filepath.Join(dir, "state.json"), time.Now(), state.Self(0), []event.Event{e}); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"--pane"}, {"--pane", "--format", format}, {"--pane", "--for-tmux", "--format", format}} {
			out, errs, code := runDetect(t, args...)
			if code != 0 || errs != "" {
				t.Fatalf("%q: exit %d, %s", args, code, errs)
			}
			line, ok := strings.CutSuffix(out, "\n")
			if !ok && out != "" {
				t.Fatalf("%q: %q is not one line", args, out)
			}
			if i, c := safetexttest.Find(line, false); i >= 0 {
				t.Fatalf("%q: %s at byte %d of %q", args, c, i, out)
			}
			if len(args) > 1 && args[1] == "--for-tmux" && strings.Contains(strings.ReplaceAll(line, "##", ""), "#") {
				t.Fatalf("%q: a # tmux would read in %q", args, out)
			}
		}
	})
}
