package main

import (
	"context"
	"io"
	"strconv"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/jq"
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
	var where *jq.Query
	if f.opts.Where != "" {
		var err error
		if where, err = jq.Compile(f.opts.Where); err != nil {
			f.prog.Errorf("--where: %v", err)
			return cli.ExitError
		}
	}
	states, code := f.loadStates(ctx, stdin)
	if code != cli.ExitOK {
		if code == cli.ExitNoMatch {
			f.prog.Errorf("%v at %s (is ag-fold running?)", state.ErrNoFile, f.path)
		}
		return code
	}
	if where != nil {
		kept := states[:0]
		for i := range states {
			v, err := jq.FromEvent(&states[i])
			if err != nil {
				f.prog.Errorf("%v", err)
				return cli.ExitError
			}
			ok, err := where.True(v)
			if err != nil {
				f.prog.Errorf("--where: %v", err)
				return cli.ExitError
			}
			if ok {
				kept = append(kept, states[i])
			}
		}
		states = kept
	}
	tty, cols := terminal(f.prog.Stdout)
	if cols <= 0 {
		cols, _ = strconv.Atoi(f.env("COLUMNS"))
	}
	out := table.Render(states, table.Options{Width: cols, Now: f.now(),
		Color: tty && f.env("NO_COLOR") == "" && f.env("TERM") != "dumb"})
	if out == "" {
		return cli.ExitNoMatch
	}
	if _, err := io.WriteString(f.prog.Stdout, out); err != nil && !cli.IsClosedPipe(err) {
		f.prog.Errorf("%v", err)
		return cli.ExitError
	}
	return cli.ExitOK
}
