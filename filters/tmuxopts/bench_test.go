package tmuxopts

import (
	"fmt"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
)

// BenchmarkUpdate is what ag-fold --tmux adds to every state it folds:
// the fold goroutine hands the state to the model.
func BenchmarkUpdate(b *testing.B) {
	m := NewModel(hostname.Named("vm"))
	states := make([]event.Event, 64)
	for i := range states {
		states[i] = st(i, fmt.Sprintf("s%d", i%20), fmt.Sprintf("%%%d", i%20), []string{"working", "waiting", "done"}[i%3])
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.Update(&states[i%len(states)])
	}
}

// BenchmarkDesiredDiff is one push's work before tmux runs: 20 sessions
// in 20 panes, one of them changed.
func BenchmarkDesiredDiff(b *testing.B) {
	m := NewModel(hostname.Named("vm"))
	panes := map[string]Pane{}
	for i := range 20 {
		id := fmt.Sprintf("%%%d", i)
		panes[id] = Pane{ID: id, Window: fmt.Sprintf("@%d", i/2)}
		s := st(i, fmt.Sprintf("s%d", i), id, "working")
		m.Update(&s)
	}
	applied := Set{}
	Diff(applied, m.Desired(panes))
	flip := []event.Event{st(100, "s3", "%3", "waiting", wait("permission", "Bash")), st(101, "s3", "%3", "working")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		// Each state newer than the last: an older one changes nothing.
		f := &flip[i%2]
		f.T = event.At(f.T.Add(2 * time.Second))
		m.Update(f)
		if cmds := Diff(applied, m.Desired(panes)); len(cmds) == 0 {
			b.Fatal("no change")
		}
	}
}

// BenchmarkDesiredHundred: the options of 100 live sessions in panes
// beside 5,000 finished ones, worked out on each change.
func BenchmarkDesiredHundred(b *testing.B) {
	m := NewModel(hostname.Named("vm"))
	panes := map[string]Pane{}
	for i := range 5100 {
		status, pane := "done", ""
		if i < 100 {
			status, pane = "working", fmt.Sprintf("%%%d", i)
			panes[pane] = Pane{ID: pane, Window: fmt.Sprintf("@%d", i)}
		}
		s := st(i, fmt.Sprintf("s%d", i), pane, status)
		m.Update(&s)
	}
	b.ReportAllocs()
	for b.Loop() {
		m.Desired(panes)
	}
}
