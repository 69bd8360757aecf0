package main

import (
	"context"
	"io"
	"strconv"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/filters/table"
)

// table is --snapshot --table: every session for people, most urgent
// first (filters/table), fitted to the terminal, coloured on one unless
// NO_COLOR is set.
func (f *folder) table(ctx context.Context, stdin io.Reader) int {
	switch {
	case f.opts.JQ != "" || f.opts.Format != "" || f.opts.Push:
		f.prog.Errorf("--table goes with --snapshot and --where only (see ag-fold --help)")
		return cli.ExitError
	}
	src, code := f.load(ctx, stdin, true)
	if code != cli.ExitOK {
		if code == cli.ExitNoMatch {
			f.prog.Errorf("%v at %s (is ag-fold running?)", state.ErrNoFile, f.path)
		}
		return code
	}
	states := src.states[:0:0]
	for i := range src.states {
		ok, err := f.filter.Match(&src.states[i])
		if err != nil {
			if c, stop := f.writeFailed(err, src.places[i]); stop {
				return c
			}
			continue
		}
		if ok {
			states = append(states, src.states[i])
		}
	}
	if f.filter.Failed() > 0 {
		code = cli.ExitError
	}
	tty, cols := terminal(f.prog.Stdout)
	if cols <= 0 {
		cols, _ = strconv.Atoi(f.env("COLUMNS"))
	}
	out := table.Render(states, table.Options{Width: cols, Now: f.now(),
		Color: tty && f.env("NO_COLOR") == "" && f.env("TERM") != "dumb"})
	if out == "" && code == cli.ExitOK {
		return cli.ExitNoMatch
	}
	if _, err := io.WriteString(f.prog.Stdout, out); err != nil && !cli.IsClosedPipe(err) {
		f.prog.Errorf("%v", err)
		return cli.ExitError
	}
	return code
}
