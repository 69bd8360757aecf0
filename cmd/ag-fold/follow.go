package main

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/cmd/internal/evfilter"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
)

// batch is what the reader decoded while input kept coming: events, their
// raw lines when --pass wants them, and how reading ended (nil: it did not).
type batch struct {
	events []event.Event
	raws   [][]byte
	keys   []uint64 // state.Key of each event, for the state file's mark
	lines  []int    // each event's input line, for messages
	err    error
}

const batchMax = 512

// read decodes stdin in a goroutine, handing over a batch whenever the
// input pauses (nothing buffered) or batchMax events are waiting, so the
// fold runs beside the decoding and ticks are not stuck behind a read.
func (f *folder) read(ctx context.Context, stdin io.Reader, bad *int) <-chan *batch {
	ch := make(chan *batch, 4)
	r := f.prog.NewReader(stdin, "<stdin>")
	go func() {
		defer close(ch)
		for {
			size := 8 // a few events at a time when they trickle in
			if r.Buffered() {
				size = batchMax
			}
			b := &batch{events: make([]event.Event, 0, size)}
			for len(b.events) < batchMax {
				b.events = append(b.events, event.Event{})
				e := &b.events[len(b.events)-1]
				var line []byte
				var err error
				if len(b.events) == 1 {
					line, err = r.Next(e) // waits for input
				} else {
					var ok bool
					// the rest of a burst: only what is already read
					if line, ok, err = r.NextBuffered(e); !ok {
						b.events = b.events[:len(b.events)-1]
						break
					}
				}
				if err != nil {
					b.events = b.events[:len(b.events)-1]
					b.err = err
					break
				}
				b.keys = append(b.keys, state.Key(e.ID, line))
				b.lines = append(b.lines, r.Line())
				if f.opts.Pass {
					raw := make([]byte, len(line)+1)
					raw[copy(raw, line)] = '\n'
					b.raws = append(b.raws, raw)
				}
			}
			if b.err != nil {
				*bad = r.Bad // read by main only after ch is closed
			}
			select {
			case ch <- b:
			case <-ctx.Done():
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
	return ch
}

// follow folds stdin until it ends, writing states as they change. Three
// goroutines share the work: one decodes, this one folds, one encodes and
// writes, so each event's cost is spread over the machine's cores.
func (f *folder) follow(ctx context.Context, stdin io.Reader) int {
	f.prog.Expecting(stdin, "pipe them in, as in ag-tail --follow | ag-fold")
	bad := 0
	if f.opts.Publish != "" {
		f.pub = newPublisher(f.opts.Publish, f.prog.Errorf)
		defer f.pub.wait()
	}
	in := f.read(ctx, stdin, &bad)
	w := f.startWriter()
	tp := f.startTmux(ctx, f.opts.tmuxOptions)
	defer tp.stop(ctx, true)
	var tick <-chan time.Time
	if every := f.tickEvery(); every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	// Other hosts' states held back by their rate limit pass as it
	// allows: a timer runs only while some wait.
	release := time.NewTicker(releaseEvery)
	release.Stop()
	releasing := false
	var republish <-chan time.Time
	if f.pub != nil && f.opts.PublishEvery > 0 {
		t := time.NewTicker(f.opts.PublishEvery)
		defer t.Stop()
		republish = t.C
	}
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	armed := false
	f.written = ^f.fold.Changes() // the file is this run's from the start, empty until states come
	f.save(true)
	f.lastWrite = time.Time{} // the first states are written at once, as ever
	for {
		select {
		case <-republish:
			f.pub.offer(f.fold.States())
		case <-ctx.Done():
			// what is still queued for a reader may never be read: leave it
			f.save(true)
			return cli.ExitInterrupted
		case <-tick:
			w.send(tp.updateOutputs(f.outputs(nil, f.settle())))
			f.confirm()
		case <-release.C:
			f.fold.SetNow(f.now())
			w.send(tp.updateOutputs(f.outputs(nil, f.fold.Release(f.now()))))
		case <-debounce.C:
			armed = false
		case b, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			w.send(tp.updateOutputs(f.apply(b)))
			if b.err != nil {
				if !errors.Is(b.err, io.EOF) {
					f.prog.Errorf("<stdin>: %v", b.err)
				}
				w.send(tp.updateOutputs(f.outputs(nil, f.fold.Drain())))
				w.send(tp.updateOutputs(f.outputs(nil, f.settle())))
				err := w.close()
				f.save(true)
				code := f.end(err)
				if code == cli.ExitOK && (bad > 0 || !errors.Is(b.err, io.EOF) || f.stateBad || f.filter.Failed() > 0) {
					code = cli.ExitError // lines that are not events, no state file kept, a failed expression
				}
				return code
			}
		}
		if err := w.failed(); err != nil {
			w.close()
			return f.end(err)
		}
		if parked := f.fold.Parked(); parked != releasing {
			if releasing = parked; parked {
				release.Reset(releaseEvery)
			} else {
				release.Stop()
			}
		}
		// The state file: settleWrite after the first change, and at most
		// every --debounce; a long burst still writes it as it goes.
		if wait := f.save(false); wait > 0 && !armed {
			debounce.Reset(wait)
			armed = true
		}
	}
}

// releaseEvery is how often states held back by a host's rate limit are
// let through while some wait.
const releaseEvery = 100 * time.Millisecond

// tickEvery is how often time alone decides (settle): every --check, and
// with --check 0 still every 10 s when --quiet-host asks for it.
func (f *folder) tickEvery() time.Duration {
	switch {
	case f.opts.Check > 0:
		return f.opts.Check
	case f.opts.QuietHost > 0:
		return min(10*time.Second, f.opts.QuietHost)
	}
	return 0
}

// output is one line to write: an input event passed through (raw is its
// line) or a state.
type output struct {
	ev   *event.Event
	raw  []byte
	line int // the input line it comes from; 0 for a --check's
}

// apply folds one batch and returns what to write, in order.
func (f *folder) apply(b *batch) []output {
	// Most events change one state or none: room for one each, so the
	// large Event values are not copied again as the slices grow.
	states := make([]event.Event, 0, len(b.events))
	outs := make([]output, 0, 2*len(b.events))
	idx := make([]int, 0, 2*len(b.events)) // outs[i] is states[idx[i]]: set once states stop growing
	f.fold.SetNow(f.now())                 // the batch's arrival: the clock for dates ahead and rate limits
	for i := range b.events {
		if f.opts.Pass {
			outs = append(outs, output{ev: &b.events[i], raw: b.raws[i], line: b.lines[i]})
			idx = append(idx, -1)
		}
		if f.marked(&b.events[i], b.keys[i]) {
			continue
		}
		for _, s := range f.fold.Apply(&b.events[i]) {
			states = append(states, s)
			outs = append(outs, output{line: b.lines[i]})
			idx = append(idx, len(states)-1)
		}
	}
	for i, j := range idx {
		if j >= 0 {
			outs[i].ev = &states[j]
		}
	}
	return outs
}

func (f *folder) outputs(outs []output, states []event.Event) []output {
	for i := range states {
		outs = append(outs, output{ev: &states[i]})
	}
	return outs
}

// writer encodes and writes outputs in its own goroutine, flushing stdout
// whenever it has nothing more to write (before it would block).
type writer struct {
	ch   chan []output
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func (f *folder) startWriter() *writer {
	w := &writer{ch: make(chan []output, 8), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		var err error
		for outs := range w.ch {
			for _, o := range outs {
				if err != nil {
					break // drain, so the folding side never blocks
				}
				if o.raw != nil && !f.filter.Active() {
					err = f.out.Raw(o.raw)
				} else if err = f.filter.Write(f.out, o.ev); evfilter.IsExprError(err) {
					f.prog.Errorf("%s: %v", statePlace(o.ev, o.line), err)
					err = nil
				}
			}
			if err == nil && len(w.ch) == 0 {
				err = f.stdout.Flush()
			}
			if err != nil {
				w.mu.Lock()
				if w.err == nil {
					w.err = err
				}
				w.mu.Unlock()
			}
		}
		if err == nil {
			err = f.stdout.Flush()
		}
		w.mu.Lock()
		if w.err == nil {
			w.err = err
		}
		w.mu.Unlock()
	}()
	return w
}

func (w *writer) send(outs []output) {
	if len(outs) > 0 {
		w.ch <- outs
	}
}

// failed returns the write error, if writing failed.
func (w *writer) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// close waits until everything sent is written and returns the error.
func (w *writer) close() error {
	close(w.ch)
	<-w.done
	return w.failed()
}

// settleWrite is how long after the first change the state file is
// written: its readers (prompts, status lines) do not see the difference,
// and tmux and stdout, which do, are told first rather than sharing the
// moment with a large file being written.
const settleWrite = 15 * time.Millisecond

// save writes the state file when the states changed since the last write
// and --debounce has passed (or force); else it returns how long to wait.
func (f *folder) save(force bool) time.Duration {
	if (f.path == "" && f.pub == nil) || f.fold.Changes() == f.written && f.mark.written {
		return 0
	}
	now := f.now()
	if f.pendingSince.IsZero() {
		f.pendingSince = time.Now() // the machine's clock: a test's may stand still
	}
	if wait := max(f.opts.Debounce-now.Sub(f.lastWrite), settleWrite-time.Since(f.pendingSince)); !force && wait > 0 {
		return wait
	}
	f.pendingSince = time.Time{}
	changes := f.fold.Changes()
	if f.pub != nil {
		f.pub.offer(f.fold.States())
	}
	var err error
	if f.path != "" {
		err = state.WriteLines(f.path, now, f.keeper, f.fold.SavedLines(&f.lines), f.mark.state())
	}
	f.lastWrite = now
	f.stateFailed(err)
	if err == nil {
		f.written, f.mark.written = changes, true
		f.confirmed = time.Now()
	}
	return 0
}

// markState is what ties the state file to ag-tail's output (state.Mark):
// the last mark event folded and the keys of the events folded since.
type markState struct {
	id      string
	after   []uint64
	full    bool // more than maxAfter since the mark: tied to nothing
	written bool // the state file has it
}

// maxAfter bounds the keys kept after a mark; ag-tail marks its output
// every few seconds while it writes, and once a minute when idle.
const maxAfter = 16384

// marked notes a mark (and reports it: there is nothing to fold), or an
// event folded after one.
func (f *folder) marked(e *event.Event, key uint64) bool {
	m := &f.mark
	if e.Kind == event.Mark {
		if e.ID != m.id || len(m.after) > 0 || m.full {
			m.id, m.after, m.full, m.written = e.ID, m.after[:0], false, false
		}
		return true
	}
	if m.id == "" || m.full {
		return false
	}
	if len(m.after) == maxAfter {
		m.full, m.after, m.written = true, m.after[:0], false
		return false
	}
	m.after = append(m.after, key)
	m.written = false
	return false
}

func (m *markState) state() state.Mark {
	if m.full {
		return state.Mark{}
	}
	return state.Mark{ID: m.id, After: m.after}
}

// confirm touches the state file when this run has not written it for
// half a --check: readers take a file nobody confirms for three checks as
// left behind by an ag-fold that stopped.
func (f *folder) confirm() {
	if f.path == "" || time.Since(f.confirmed) < f.opts.Check/2 {
		return
	}
	now := time.Now()
	err := state.Touch(f.path, now)
	f.stateFailed(err)
	if err == nil {
		f.confirmed = now
	}
}

// stateFailed reports a state-file error once (until it changes or a
// write works again); any makes the exit status 2.
func (f *folder) stateFailed(err error) {
	if err == nil {
		f.stateErr = ""
		return
	}
	f.stateBad = true
	if msg := err.Error(); msg != f.stateErr {
		f.prog.Errorf("state file: %v", err)
		f.stateErr = msg
	}
}

// end maps a write error to the exit status: a reader that went away ends
// the run quietly.
func (f *folder) end(err error) int {
	switch {
	case err == nil:
		return cli.ExitOK
	case cli.IsClosedPipe(err):
		f.save(true)
		return cli.ExitOK
	}
	f.prog.Errorf("%v", err)
	f.save(true)
	return cli.ExitError
}

func itoa(n int) string { return strconv.Itoa(n) }
