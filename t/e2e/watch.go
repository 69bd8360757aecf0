//go:build e2e

package e2e

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// Watcher collects the events a program writes, in order, and lets a test
// wait for the next one matching a predicate. It keeps a cursor: each
// WaitFor searches from just after the previous match, so a sequence of
// waits asserts an order.
type Watcher struct {
	name string

	mu     sync.Mutex
	lines  []string
	events []event.Event
	bad    []string
	eof    error // set when the stream ended
	signal chan struct{}
	cursor int
}

// Watch reads NDJSON events from r until it ends. name labels failures.
func Watch(name string, r io.Reader) *Watcher {
	w := &Watcher{name: name, signal: make(chan struct{})}
	go w.read(r)
	return w
}

func (w *Watcher) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var e event.Event
		err := event.Decode([]byte(line), &e)
		w.mu.Lock()
		w.lines = append(w.lines, line)
		if err != nil {
			w.bad = append(w.bad, fmt.Sprintf("line %d: %v: %s", len(w.lines), err, line))
		} else {
			w.events = append(w.events, e)
		}
		w.wake()
		w.mu.Unlock()
	}
	w.mu.Lock()
	w.eof = sc.Err()
	if w.eof == nil {
		w.eof = io.EOF
	}
	w.wake()
	w.mu.Unlock()
}

// wake tells every waiter something changed; w.mu is held.
func (w *Watcher) wake() {
	close(w.signal)
	w.signal = make(chan struct{})
}

// Events returns a copy of every event so far.
func (w *Watcher) Events() []event.Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]event.Event(nil), w.events...)
}

// Bad returns the lines that did not decode as events.
func (w *Watcher) Bad() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.bad...)
}

// Text is everything read, one line per event, for failure logs.
func (w *Watcher) Text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := strings.Join(w.lines, "\n")
	if w.eof != nil {
		s += fmt.Sprintf("\n(stream ended: %v)", w.eof)
	}
	return s
}

// Timeline is the state events so far, one short line each (time, agent,
// session, status, attention, tool, gen), for failure logs.
func (w *Watcher) Timeline() string {
	var b strings.Builder
	for _, e := range w.Events() {
		if e.Kind != event.State {
			continue
		}
		sess := e.Session
		if len(sess) > 8 {
			sess = sess[:8]
		}
		fmt.Fprintf(&b, "%s %s/%s %-7s", e.T.UTC().Format("15:04:05.000"), e.Agent, sess, e.Status)
		for _, kv := range [][2]string{{"attention", e.Attention}, {"tool", e.Tool}, {"text", e.Text}, {"model", e.Model}} {
			if kv[1] != "" {
				fmt.Fprintf(&b, " %s=%q", kv[0], kv[1])
			}
		}
		if e.Context != nil {
			fmt.Fprintf(&b, " context=%d/%d", e.Context.Used, e.Context.Size)
		}
		fmt.Fprintf(&b, " gen=%d\n", e.Gen)
	}
	if b.Len() == 0 {
		return "(no state events)"
	}
	return b.String()
}

// Cursor is the index of the next event WaitFor will look at.
func (w *Watcher) Cursor() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cursor
}

// Skip moves the cursor past every event seen so far.
func (w *Watcher) Skip() {
	w.mu.Lock()
	w.cursor = len(w.events)
	w.mu.Unlock()
}

// Next returns the next event after the cursor (advancing it), waiting at
// most until deadline; ok is false at the deadline or when the stream ended.
func (w *Watcher) Next(deadline time.Time) (e event.Event, ok bool) {
	for {
		w.mu.Lock()
		if w.cursor < len(w.events) {
			e = w.events[w.cursor]
			w.cursor++
			w.mu.Unlock()
			return e, true
		}
		sig, eof := w.signal, w.eof
		w.mu.Unlock()
		if eof != nil {
			return e, false
		}
		d := time.Until(deadline)
		if d <= 0 {
			return e, false
		}
		timer := time.NewTimer(d)
		select {
		case <-sig:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// WaitFor returns the first event after the cursor for which match is true
// and moves the cursor past it; the test fails after timeout, naming what
// it waited for.
func (w *Watcher) WaitFor(t testing.TB, what string, timeout time.Duration, match func(*event.Event) bool) event.Event {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		e, ok := w.Next(deadline)
		if !ok {
			t.Fatalf("%s: no event %s within %s (%s)", w.name, what, timeout, w.why())
		}
		if match(&e) {
			return e
		}
	}
}

func (w *Watcher) why() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.eof != nil {
		return fmt.Sprintf("stream ended: %v", w.eof)
	}
	return fmt.Sprintf("%d events read", len(w.events))
}

// Await waits until some event seen so far (from the very first) matches,
// without moving the cursor: for facts that may arrive in any order with
// the status changes, like meters.
func (w *Watcher) Await(t testing.TB, what string, timeout time.Duration, match func(*event.Event) bool) event.Event {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for i := 0; ; {
		w.mu.Lock()
		for ; i < len(w.events); i++ {
			if match(&w.events[i]) {
				e := w.events[i]
				w.mu.Unlock()
				return e
			}
		}
		sig, eof := w.signal, w.eof
		w.mu.Unlock()
		d := time.Until(deadline)
		if eof != nil || d <= 0 {
			t.Fatalf("%s: no event %s within %s (%s)", w.name, what, timeout, w.why())
		}
		timer := time.NewTimer(d)
		select {
		case <-sig:
		case <-timer.C:
		}
		timer.Stop()
	}
}
