package fold

import (
	"testing"

	"github.com/agwatch/ag/filters/event"
)

// TestStatuslineWindow: Claude's statusLine names the window the session
// runs with (1M for "[1m]"); a transcript meter, which cannot tell, must
// not shrink it back to 200k between two statusline readings.
func TestStatuslineWindow(t *testing.T) {
	f := newFolder(t)
	f.apply(
		ev(event.TurnStart, hook, 1),
		ev(event.Meter, event.SrcStatusline, 2, ctxw(120000, 1000000), cost(0.5)),
		ev(event.Meter, log, 3, ctxw(130000, 200000)),
	)
	s := f.state()
	if s.Context == nil || s.Context.Used != 130000 || s.Context.Size != 1000000 || s.Context.LeftPct == nil || *s.Context.LeftPct != 87 {
		t.Errorf("context %+v, want the transcript's 130000 used in the statusline's 1000000 window, 87%% left", s.Context)
	}
}
