package tmux

import "testing"

// TestNotesWake: output wakes the reader unless its pane is held; output
// that came while held wakes it once the hold ends, and so does more
// output of a pane whose note is still queued.
func TestNotesWake(t *testing.T) {
	woke := func(n *Notes) bool {
		select {
		case <-n.Wake():
			return true
		default:
			return false
		}
	}
	out := Note{Name: "output", Args: []string{"%1", "x"}}
	n := NewNotes()
	n.put(out)
	if !woke(n) {
		t.Fatal("output woke nothing")
	}
	n.put(out) // queued already: dated again, and still news
	if !woke(n) {
		t.Error("more output of a queued pane woke nothing")
	}
	n.Take()

	n.Hold("%1", true)
	n.put(out)
	n.put(out)
	if woke(n) {
		t.Error("a held pane's output woke the reader")
	}
	n.Hold("%1", false)
	if !woke(n) {
		t.Error("output that came while held did not wake the reader once the hold ended")
	}
	if q := n.Take(); len(q) != 1 || q[0].Pane() != "%1" {
		t.Errorf("queued %+v, want one output note of %%1", q)
	}
	n.Hold("%1", false)
	if woke(n) {
		t.Error("a hold ended with nothing queued woke the reader")
	}
}
