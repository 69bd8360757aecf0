// Package evfilter applies --where and --jq (gojq) to events on their way
// out. It lives apart from cli so programs that read no events (ag-hook,
// ag-detect --pane) do not link gojq, whose start-up costs ~0.5 ms.
package evfilter

import (
	stdjson "encoding/json"
	"fmt"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jq"
)

// Filter applies --where and --jq to each event on its way out.
type Filter struct {
	where *jq.Query
	jq    *jq.Query
}

// NewFilter compiles the expressions once; empty ones are skipped.
func New(o cli.Filter) (*Filter, error) {
	f := &Filter{}
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
	return f, nil
}

// Active reports whether any expression was given.
func (f *Filter) Active() bool { return f.where != nil || f.jq != nil }

// Write passes e through the filter and writes what comes out.
func (f *Filter) Write(w *cli.Writer, e *event.Event) error {
	if !f.Active() {
		return w.Event(e)
	}
	v, err := jq.FromEvent(e)
	if err != nil {
		return err
	}
	if f.where != nil {
		ok, err := f.where.True(v)
		if err != nil || !ok {
			return err
		}
	}
	if f.jq == nil {
		return w.Event(e)
	}
	outs, err := f.jq.Run(v)
	if err != nil {
		return err
	}
	for _, o := range outs {
		b, err := stdjson.Marshal(o)
		if err != nil {
			return err
		}
		if err := w.Raw(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}
