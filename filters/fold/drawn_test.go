package fold

import (
	"testing"

	"github.com/agwatch/ag/filters/event"
)

// TestDrawnLate: Claude 2.1.332 fires PermissionRequest, shows its spinner,
// and draws the question half a second later. The wait the hook raised is
// the one the user answers: its token must outlive the spinner, so an
// answer quoting it (from the notification) is not refused.
func TestDrawnLate(t *testing.T) {
	f := newFolder(t)
	f.apply(ev(event.TurnStart, hook, 1, run("p1")))
	raised := f.apply(ev(event.Wait, hook, 3, attn(event.AttnQuestion), tool("AskUserQuestion", "")))
	if len(raised) != 1 {
		t.Fatalf("the hook's wait made %d states, want 1", len(raised))
	}
	token := raised[0].Token
	f.apply(ev(event.WaitEnd, pn, 3.047, reason(event.ReasonBusy)))
	f.tick(3.5)
	f.apply(ev(event.Wait, pn, 3.58, attn(event.AttnQuestion), text("Which colour?"), options("Blue", "Green")))
	f.tick(6)
	st := f.last["claude/s1/"]
	if st.Status != event.StatusWaiting || st.Token != token {
		t.Fatalf("after the spinner and the picker: %s %s, want waiting %s\n%s", st.Status, st.Token, token, event.Marshal(&st))
	}
	if len(st.Options) != 2 {
		t.Errorf("options %q, want the picker's two", st.Options)
	}
	for _, s := range f.all[1:] {
		if s.Status != event.StatusWaiting {
			t.Errorf("the wait left at %s: %s", s.T, s.Status)
		}
	}
}
