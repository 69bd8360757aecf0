package main

import (
	"context"
	"fmt"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/cmd/internal/evfilter"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
)

// out is what reading produced, in order: event lines (filtered and
// encoded) and error messages. Meters are marked by their byte span, so
// the writer can drop one that an earlier file already counted: that
// decision needs the files in order, everything else can be done on any
// core. While a restart skips what ag-fold already folded, every event
// is marked.
type out struct {
	buf   []byte
	spans []span
	msgs  []msgAt
}

// span is the bytes --where/--jq made of one event (none when they
// dropped it: a meter still counts as seen).
type span struct {
	start, end int
	meter      uint64 // a meter's id (state.Key), 0: not a meter with an id
	key        uint64 // the event's state.Key, 0: not checked against the skip set
}

// msgAt is an error message, said when the writer reaches byte at.
type msgAt struct {
	at   int
	text string
}

func (o *out) reset() {
	o.buf, o.spans, o.msgs = o.buf[:0], o.spans[:0], o.msgs[:0]
}

// outMax is how much a sink gathers before handing it on.
const outMax = 64 << 10

// sink turns one reader's events into output: --since, --agent,
// --where/--jq and the encoding. Each worker has its own; send hands a
// full out to the writer.
type sink struct {
	t       *tail
	filter  *evfilter.Filter
	w       *cli.Writer // encodes into o.buf
	enc     event.Encoder
	o       *out
	send    func(*out)
	scratch []byte             // read buffer of the sources this sink reads
	emitFn  func(*event.Event) // emit, made once: a method value passed on allocates
	at      cli.Place          // the line being read, for an expression's error
}

func (t *tail) newSink(send func(*out)) (*sink, error) {
	ctx := t.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	f, err := evfilter.New(ctx, t.opts.Filter)
	if err != nil {
		return nil, err
	}
	k := &sink{t: t, filter: f, send: send, o: t.getOut()}
	k.emitFn = k.emit
	k.w = cli.NewWriter(sinkWriter{k})
	return k, nil
}

type sinkWriter struct{ k *sink }

func (w sinkWriter) Write(p []byte) (int, error) {
	w.k.o.buf = append(w.k.o.buf, p...)
	return len(p), nil
}

// emit is what parsers call for each event.
func (k *sink) emit(e *event.Event) {
	t := k.t
	if !t.cutoff.IsZero() && e.T.Before(t.cutoff) {
		return
	}
	if t.opts.Agent != "" && e.Agent != t.opts.Agent {
		return
	}
	o := k.o
	start := len(o.buf)
	if !k.filter.Active() {
		o.buf = k.enc.Append(o.buf, e) // straight in: no copy through the writer
	} else if err := k.filter.Write(k.w, e); err != nil {
		// A jq expression failing on one event is that event's problem,
		// said where the event was read.
		k.errorf("%s: %v", k.at, err)
		if evfilter.IsExprError(err) {
			k.t.failed.Add(1)
		}
	}
	sp := span{start: start, end: len(o.buf)}
	if e.Kind == event.Meter && e.ID != "" {
		sp.meter = state.Key(e.ID, nil)
	}
	if t.skip != nil && sp.end > sp.start {
		sp.key = state.Key(e.ID, o.buf[sp.start:sp.end-1])
	}
	if sp.meter != 0 || sp.key != 0 {
		o.spans = append(o.spans, sp)
	}
	if len(o.buf) >= outMax {
		k.flush()
	}
}

// errorf reports a problem with what was read, in its place in the output.
func (k *sink) errorf(format string, args ...any) {
	k.o.msgs = append(k.o.msgs, msgAt{len(k.o.buf), fmt.Sprintf(format, args...)})
}

// flush hands on what was gathered.
func (k *sink) flush() {
	if len(k.o.buf) == 0 && len(k.o.msgs) == 0 {
		return
	}
	k.send(k.o)
	k.o = k.t.getOut()
}

// commit writes one out: meters already counted are left out, and each
// message is said in its place. What is kept between two events left out
// goes in one write (an out with none, most of them, in one).
func (t *tail) commit(o *out) {
	pos, mi := 0, 0 // o.buf[pos:] is not written yet
	writeTo := func(at int) {
		for mi < len(o.msgs) && o.msgs[mi].at <= at {
			t.write(o.buf[pos:o.msgs[mi].at])
			pos = o.msgs[mi].at
			t.prog.Errorf("%s", o.msgs[mi].text)
			t.reported++
			mi++
		}
		t.write(o.buf[pos:at])
		pos = at
	}
	for _, sp := range o.spans {
		drop := false
		if sp.meter != 0 {
			if _, dup := t.meters[sp.meter]; dup {
				drop = true
			} else {
				t.meters[sp.meter] = struct{}{}
				if t.saveMeters {
					t.newMeters = append(t.newMeters, sp.meter)
				}
			}
		}
		if !drop && sp.key != 0 && t.skip[sp.key] > 0 {
			t.skip[sp.key]-- // ag-fold has it: folded before the restart
			drop = true
		}
		if drop {
			writeTo(sp.start)
			pos = sp.end
		}
	}
	writeTo(len(o.buf))
	if len(o.buf) > 0 {
		t.wrote = true
	}
	t.putOut(o)
}

func (t *tail) write(b []byte) {
	if len(b) == 0 || t.err != nil {
		return
	}
	if _, err := t.buf.Write(b); err != nil {
		t.err = err
	}
}

// getOut is an out from the free list, else a new one. The list is a
// channel, not a sync.Pool: a pool lets go of its outs at every collection,
// and making them again was a third of what a replay allocated.
func (t *tail) getOut() *out {
	select {
	case o := <-t.outs:
		return o
	default:
		return &out{buf: make([]byte, 0, outMax+4<<10)}
	}
}

func (t *tail) putOut(o *out) {
	if cap(o.buf) > 4*outMax {
		return // one huge line: let it go
	}
	o.reset()
	select {
	case t.outs <- o:
	default: // as many as a replay holds are kept already
	}
}
