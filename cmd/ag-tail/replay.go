package main

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// replay reads units on every core (GOMAXPROCS workers, one unit each at
// a time) and writes what they produce in the units' order, each unit's
// output in its own order: the bytes are those of a single reader. At
// most window units are read ahead of the writer and each holds at most
// a few outs, so memory does not grow with the history.
func (t *tail) replay(ctx context.Context, units []*unit, work func(*sink, *unit)) error {
	if len(units) == 0 {
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), len(units))
	window := 4 * workers
	outs := make([]chan *out, len(units))
	for i := range outs {
		outs[i] = make(chan *out, 4)
	}
	var stop atomic.Bool
	t.stop = &stop
	defer func() { t.stop = nil }()
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()

	slots := make(chan struct{}, window)
	jobs := make(chan int)
	go func() {
		defer close(jobs)
		for i := range units {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
			}
			if stop.Load() || ctx.Err() != nil {
				for _, ch := range outs[i:] {
					close(ch) // never read: the writer finds them empty
				}
				return
			}
			jobs <- i
		}
	}()
	var wg sync.WaitGroup
	var sinkErr error
	var errOnce sync.Once
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ch chan *out
			k, err := t.newSink(func(o *out) { ch <- o })
			if err != nil {
				errOnce.Do(func() { sinkErr = err })
				stop.Store(true)
			}
			for i := range jobs {
				ch = outs[i]
				if k != nil && !stop.Load() {
					work(k, units[i])
					k.flush()
				}
				close(ch)
			}
		}()
	}

	for i := range units {
		for o := range outs[i] {
			if ctx.Err() != nil || t.err != nil {
				stop.Store(true)
				continue // drain, so no worker waits on a full channel
			}
			t.commit(o)
		}
		select {
		case <-slots:
		default:
		}
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
