package tmuxopts

import (
	"fmt"
	"testing"

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
		m.Update(&flip[i%2])
		if cmds := Diff(applied, m.Desired(panes)); len(cmds) == 0 {
			b.Fatal("no change")
		}
	}
}
