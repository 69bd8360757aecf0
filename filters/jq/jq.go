// Package jq runs the jq expressions of --where and --jq over events, with
// gojq, compiled once per run.
package jq

import (
	"context"
	stdjson "encoding/json"
	"fmt"

	"github.com/agwatch/ag/filters/event"
	"github.com/itchyny/gojq"
)

// Query is one compiled expression.
type Query struct{ code *gojq.Code }

// Compile parses and compiles expr.
func Compile(expr string) (*Query, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, err
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, err
	}
	return &Query{code}, nil
}

// FromEvent turns e into the plain value jq works on.
func FromEvent(e *event.Event) (any, error) {
	var v any
	if err := stdjson.Unmarshal(event.Marshal(e), &v); err != nil {
		return nil, err
	}
	return v, nil
}

// Run returns every result of the expression on v.
func (q *Query) Run(v any) ([]any, error) {
	var out []any
	iter := q.code.RunWithContext(context.Background(), v)
	for {
		r, ok := iter.Next()
		if !ok {
			return out, nil
		}
		if err, isErr := r.(error); isErr {
			if herr, ok := err.(*gojq.HaltError); ok && herr.Value() == nil {
				return out, nil
			}
			return out, err
		}
		out = append(out, r)
	}
}

// True reports whether the first result is truthy (jq's sense: not false/null).
func (q *Query) True(v any) (bool, error) {
	iter := q.code.RunWithContext(context.Background(), v)
	r, ok := iter.Next()
	if !ok {
		return false, nil
	}
	if err, isErr := r.(error); isErr {
		return false, fmt.Errorf("%v", err)
	}
	return r != nil && r != false, nil
}
