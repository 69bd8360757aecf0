package fold

import (
	"fmt"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// Stream makes a realistic stream of n events over sessions sessions:
// turns with tool calls, permission waits, meters and transcript echoes.
func stream(n, sessions int) []event.Event {
	out := make([]event.Event, 0, n)
	t := t0
	for i := 0; len(out) < n; i++ {
		s := fmt.Sprintf("s%03d", i%sessions)
		step := i / sessions
		mk := func(kind, src string, opts ...opt) {
			t = t.Add(3 * time.Millisecond)
			e := event.New(kind, t, "claude", s)
			e.Src, e.ID = src, fmt.Sprintf("%s/%d/%s/%s", s, step, kind, src)
			e.Pane, e.PID = fmt.Sprintf("%%%d", i%sessions), 100000+i%sessions
			for _, o := range opts {
				o(&e)
			}
			out = append(out, e)
		}
		switch step % 6 {
		case 0:
			mk(event.TurnStart, hook, run(fmt.Sprint("p", step)), text("do the thing"))
		case 1:
			mk(event.ToolStart, hook, tool("Bash", fmt.Sprint("t", step)), text("go test ./..."))
			mk(event.Wait, hook, attn("permission"), tool("Bash", ""))
		case 2:
			mk(event.ToolStart, log, tool("Bash", fmt.Sprint("t", step)))
			mk(event.ToolEnd, hook, tool("Bash", fmt.Sprint("t", step)))
		case 3:
			mk(event.Meter, log, toks(10, 200), ctxw(int64(1000*step), 200000))
		case 4:
			mk(event.ToolEnd, log, tool("Bash", fmt.Sprint("t", step)))
		case 5:
			mk(event.TurnEnd, hook)
			mk(event.TurnEnd, log)
		}
	}
	return out[:n]
}

func BenchmarkFold(b *testing.B) {
	es := stream(100000, 50)
	b.ReportAllocs()
	f := New(Config{})
	i := 0
	for b.Loop() {
		if i == len(es) {
			f, i = New(Config{}), 0
		}
		f.Apply(&es[i])
		i++
	}
}
