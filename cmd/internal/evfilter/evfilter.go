// Package evfilter applies --where and --jq (gojq) to events on their way
// out. It lives apart from cli so programs that read no events (ag-hook,
// ag-detect --pane) do not link gojq, whose start-up costs ~0.5 ms.
package evfilter

import (
	"context"
	"errors"
	"fmt"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jq"
)

// Filter applies --where and --jq to each event on its way out.
type Filter struct {
	ctx    context.Context
	where  *jq.Query
	jq     *jq.Query
	raw    bool
	slurp  bool
	held   []any // --slurp: every event's value, for Flush
	failed int
}

// New compiles the expressions once; empty ones are skipped. ctx is the
// program's: when it ends, a running expression stops.
func New(ctx context.Context, o cli.Filter) (*Filter, error) {
	f := &Filter{ctx: ctx, raw: o.Raw}
	var err error
	if o.Where != "" {
		if f.where, err = jq.Compile(o.Where); err != nil {
			return nil, fmt.Errorf("--where: %w", err)
		}
	}
	if o.JQ != "" {
		if f.jq, err = jq.Compile(o.JQ); err != nil {
			return nil, fmt.Errorf("--jq: %w", err)
		}
	}
	if o.Raw && o.JQ == "" {
		return nil, errors.New("--raw goes with --jq")
	}
	return f, nil
}

// Slurp makes --jq run once, at Flush, over the array of every event that
// passed --where.
func (f *Filter) Slurp(on bool) error {
	if on && f.jq == nil {
		return errors.New("--slurp goes with --jq")
	}
	f.slurp = on
	return nil
}

// Active reports whether any expression was given.
func (f *Filter) Active() bool { return f.where != nil || f.jq != nil }

// Failed counts the events an expression failed on (the exit status is 2
// when any did).
func (f *Filter) Failed() int { return f.failed }

// ExprError is an expression failing on one event: a jq runtime error, or
// a bound it ran past. Nothing is written for that event; the program
// reports it where the event came from and goes on.
type ExprError struct {
	Flag string // --where or --jq
	Err  error
}

func (e *ExprError) Error() string { return e.Flag + ": " + e.Err.Error() }
func (e *ExprError) Unwrap() error { return e.Err }

// Write passes e through the filter and writes what comes out. It returns
// an *ExprError when an expression fails on e, the program's context
// error when it was asked to stop, and write errors as they are.
func (f *Filter) Write(w *cli.Writer, e *event.Event) error {
	if !f.Active() {
		return w.Event(e)
	}
	v, err := jq.FromEvent(e)
	if err != nil {
		return err
	}
	if f.where != nil {
		ok, err := f.where.True(f.ctx, v)
		if err != nil {
			return f.fail("--where", err)
		}
		if !ok {
			return nil
		}
	}
	if f.jq == nil {
		return w.Event(e)
	}
	if f.slurp {
		f.held = append(f.held, v)
		return nil
	}
	return f.run(w, v)
}

// Match reports whether e passes --where (true when there is none); an
// *ExprError when the expression fails on it.
func (f *Filter) Match(e *event.Event) (bool, error) {
	if f.where == nil {
		return true, nil
	}
	v, err := jq.FromEvent(e)
	if err != nil {
		return false, err
	}
	ok, err := f.where.True(f.ctx, v)
	if err != nil {
		return false, f.fail("--where", err)
	}
	return ok, nil
}

// Flush runs a --slurp expression over the events held; nothing to do
// otherwise.
func (f *Filter) Flush(w *cli.Writer) error {
	if !f.slurp {
		return nil
	}
	held := f.held
	if held == nil {
		held = []any{}
	}
	f.held = nil
	return f.run(w, held)
}

func (f *Filter) run(w *cli.Writer, v any) error {
	outs, err := f.jq.Run(f.ctx, v)
	for _, o := range outs {
		b, merr := jq.Marshal(o, f.raw)
		if merr != nil {
			return merr
		}
		if werr := w.Raw(append(b, '\n')); werr != nil {
			return werr
		}
	}
	if err != nil {
		return f.fail("--jq", err)
	}
	return nil
}

func (f *Filter) fail(flag string, err error) error {
	if f.ctx.Err() != nil && errors.Is(err, f.ctx.Err()) {
		return err // asked to stop: not this event's fault
	}
	f.failed++
	return &ExprError{flag, err}
}

// IsExprError reports whether err is an expression failing on one event.
func IsExprError(err error) bool {
	var xe *ExprError
	return errors.As(err, &xe)
}
