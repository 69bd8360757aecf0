package main

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

const (
	// aheadUnits bounds how many units are read at once ahead of the writer.
	aheadUnits = 64
	// aheadBytes bounds the output they may hold meanwhile; the unit the
	// writer is on is never held back (it must go on for the rest to).
	aheadBytes = 8 << 20
)

// replay reads units on every core (GOMAXPROCS workers, one unit each at
// a time) and writes what they produce in the units' order, each unit's
// output in its own order: the bytes are those of a single reader. Memory
// stays bounded: at most aheadUnits units in flight, holding at most
// aheadBytes of output beyond the one being written.
func (t *tail) replay(ctx context.Context, units []*unit, work func(*sink, *unit)) error {
	if len(units) == 0 {
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), len(units))
	var stop atomic.Bool
	t.stop = &stop
	defer func() { t.stop = nil }()
	b := newBudget(aheadBytes)
	defer context.AfterFunc(ctx, func() { stop.Store(true); b.wakeAll() })()

	type job struct {
		i  int
		ch chan *out
	}
	jobs := make(chan job)
	order := make(chan chan *out, aheadUnits) // the units' outputs, in order
	go func() {
		defer close(jobs)
		defer close(order)
		for i := range units {
			if stop.Load() {
				return
			}
			ch := make(chan *out, aheadBytes/outMax+1)
			order <- ch // blocks while aheadUnits are in flight
			jobs <- job{i, ch}
		}
	}()
	var wg sync.WaitGroup
	var sinkErr error
	var errOnce sync.Once
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var cur job
			k, err := t.newSink(func(o *out) {
				b.take(cur.i, len(o.buf))
				cur.ch <- o
			})
			if err != nil {
				errOnce.Do(func() { sinkErr = err })
				stop.Store(true)
			}
			for j := range jobs {
				cur = j
				if k != nil && !stop.Load() {
					work(k, units[j.i])
					k.flush()
				}
				close(j.ch)
			}
		}()
	}

	i := 0
	for ch := range order {
		b.advance(i)
		for o := range ch {
			n := len(o.buf)
			if ctx.Err() != nil || t.err != nil {
				stop.Store(true)
				t.putOut(o) // drain, so no worker waits on a full channel
			} else {
				t.commit(o)
			}
			b.give(n)
		}
		i++
	}
	wg.Wait()
	if sinkErr != nil {
		return sinkErr
	}
	if t.err != nil {
		return t.err
	}
	return ctx.Err()
}

// stopped reports whether a replay was told to end (Ctrl-C, or the
// reader of stdout went away): readers give up at their next chunk.
func (t *tail) stopped() bool {
	return t.stop != nil && t.stop.Load()
}

// budget is the output the units ahead of the writer may hold.
type budget struct {
	mu         sync.Mutex
	cond       *sync.Cond
	used, most int
	head       int // the unit the writer is on
	released   bool
}

func newBudget(most int) *budget {
	b := &budget{most: most}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// take waits until unit may hold n more bytes.
func (b *budget) take(unit, n int) {
	b.mu.Lock()
	for unit != b.head && b.used+n > b.most && !b.released {
		b.cond.Wait()
	}
	b.used += n
	b.mu.Unlock()
}

func (b *budget) give(n int) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// advance says the writer is on unit head now.
func (b *budget) advance(head int) {
	b.mu.Lock()
	b.head = head
	b.mu.Unlock()
	b.cond.Broadcast()
}

// wakeAll lets every waiter go (the replay is ending).
func (b *budget) wakeAll() {
	b.mu.Lock()
	b.released = true
	b.mu.Unlock()
	b.cond.Broadcast()
}
