// Package jq runs the jq expressions of --where and --jq over events, with
// gojq: compiled once per run, given the environment ($ENV, env) and the ag
// module (ag::waiting, ag::by_urgency, …; ag.jq), and bounded per event in
// time and memory, so an expression that loops or grows gives up on that
// event instead of holding the program.
package jq

import (
	"context"
	_ "embed"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/safetext"
	"github.com/itchyny/gojq"
)

//go:embed ag.jq
var agModule string

// Bounds on one run of an expression over one event. An event is a few
// kilobytes and an expression over it takes microseconds: these are far
// beyond any real use, and near enough that a runaway one is stopped
// before it hurts the machine.
const (
	MaxTime = time.Second
	MaxHeap = 256 << 20 // bytes the heap may grow by
)

// Query is one compiled expression.
type Query struct {
	code     *gojq.Code
	maxTime  time.Duration
	maxHeap  uint64
	checkGap time.Duration
}

// Compile parses and compiles expr. The ag module is imported as ag
// unless expr imports something as ag itself.
func Compile(expr string) (*Query, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, err
	}
	imported := false
	for _, im := range q.Imports {
		if im.ImportAlias == "ag" || im.ImportAlias == "$ag" {
			imported = true
		}
	}
	if !imported {
		q.Imports = append(q.Imports, &gojq.Import{ImportPath: "ag", ImportAlias: "ag"})
	}
	code, err := gojq.Compile(q,
		gojq.WithModuleLoader(loader{}),
		gojq.WithFunction("_ag_safe", 0, 0, safe),
		gojq.WithEnvironLoader(os.Environ))
	if err != nil {
		return nil, err
	}
	return &Query{code: code, maxTime: MaxTime, maxHeap: MaxHeap, checkGap: 20 * time.Millisecond}, nil
}

// loader serves the ag module; any other module is not found (there is
// no search path to read files from).
type loader struct{}

var agQuery = func() *gojq.Query {
	q, err := gojq.Parse(agModule)
	if err != nil {
		panic("ag.jq: " + err.Error())
	}
	return q
}()

func (loader) LoadModule(name string) (*gojq.Query, error) {
	if name == "ag" {
		return agQuery, nil
	}
	return nil, fmt.Errorf("module not found: %q (the one module is \"ag\")", name)
}

// FromEvent turns e into the plain value jq works on.
func FromEvent(e *event.Event) (any, error) {
	var v any
	if err := stdjson.Unmarshal(event.Marshal(e), &v); err != nil {
		return nil, err
	}
	return v, nil
}

// safe is ag::safe: a string made fit to print (filters/safetext: no
// escape sequence, control or bidi character, one line); anything else as
// jq's tostring would write it, made the same.
func safe(v any, _ []any) any {
	s, ok := v.(string)
	if !ok {
		b, err := gojq.Marshal(v)
		if err != nil {
			return err
		}
		s = string(b)
	}
	return safetext.Line(s, 0)
}

// Gave-up errors: the bound that stopped a run.
var (
	ErrTime   = fmt.Errorf("gave up after %v on this event (the expression runs too long)", MaxTime)
	ErrMemory = fmt.Errorf("gave up at %d MiB more memory on this event (the expression grows without bound)", MaxHeap>>20)
)

// Run returns every result of the expression on v. It stops when ctx ends
// (the program was asked to stop: ctx's error) or a bound is passed
// (ErrTime, ErrMemory).
func (q *Query) Run(ctx context.Context, v any) ([]any, error) {
	var out []any
	err := q.each(ctx, v, func(r any) bool {
		out = append(out, r)
		return true
	})
	return out, err
}

// True reports whether the first result is truthy (jq's sense: not
// false/null); no result is false.
func (q *Query) True(ctx context.Context, v any) (bool, error) {
	ok := false
	err := q.each(ctx, v, func(r any) bool {
		ok = r != nil && r != false
		return false
	})
	return ok, err
}

// each runs the expression, handing each result to f until f says stop.
func (q *Query) each(parent context.Context, v any, f func(any) bool) error {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	// The watchdog starts only for a run that is still going after a
	// check gap: a run over an event takes microseconds, and no timer or
	// heap reading is spent on it.
	start := time.Now()
	var over atomic.Bool // the run is over: a late check does nothing
	var base uint64
	var samples []metrics.Sample
	var watch atomic.Pointer[time.Timer] // the next check, to stop
	var check func()
	check = func() {
		if over.Load() {
			return
		}
		if samples == nil {
			samples = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		}
		metrics.Read(samples)
		heap := samples[0].Value.Uint64()
		switch {
		case base == 0:
			base = heap
		case heap > base+q.maxHeap:
			cancel(ErrMemory)
			return
		}
		if time.Since(start) > q.maxTime {
			cancel(ErrTime)
			return
		}
		watch.Store(time.AfterFunc(q.checkGap, check))
	}
	watch.Store(time.AfterFunc(q.checkGap, check))
	defer func() {
		over.Store(true)
		watch.Load().Stop()
	}()
	iter := q.code.RunWithContext(ctx, v)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := r.(error); isErr {
			if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
				if errors.Is(cause, context.Canceled) {
					return parent.Err()
				}
				return cause
			}
			var herr *gojq.HaltError
			if errors.As(err, &herr) && herr.Value() == nil {
				return nil // halt: stop, no error
			}
			return err
		}
		if !f(r) {
			return nil
		}
	}
}

// Marshal writes one result as jq prints it: compact JSON with no HTML
// escaping (">" stays ">"), and with raw (jq -r) a string as its bare text.
func Marshal(v any, raw bool) ([]byte, error) {
	if s, ok := v.(string); ok && raw {
		return []byte(s), nil
	}
	return gojq.Marshal(v)
}
