package main

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/cmd/internal/evfilter"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
)

// stdinData returns stdin to read when it is a pipe or a file: what came
// on it is the answer, nothing included (ag-tail --once that found nothing
// is no reason to show an old state file). A terminal or /dev/null (a
// prompt, tmux's #(), a service) means "read the state file".
func stdinData(stdin io.Reader) (io.Reader, bool) {
	if stdin == nil {
		return nil, false
	}
	if file, ok := stdin.(*os.File); ok {
		fi, err := file.Stat()
		if err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			return nil, false
		}
	}
	return stdin, true
}

// snapshotSource is what --snapshot shows: the states, and where each came
// from for messages (the input line that last changed it, or its place in
// the state file).
type snapshotSource struct {
	states []event.Event
	places []cli.Place
	bad    int  // input lines that were not events
	kept   bool // a running ag-fold keeps them (stdin's are this run's own)
}

// load folds stdin when it is a pipe or file, else reads the state file.
// quiet (a prompt's --format) says nothing when there is no state file.
func (f *folder) load(ctx context.Context, stdin io.Reader, quiet bool) (snapshotSource, int) {
	in, fromStdin := stdinData(stdin)
	if !fromStdin {
		file, err := state.Load(f.path)
		switch {
		case errors.Is(err, state.ErrNoFile):
			if !quiet {
				f.prog.Errorf("no state file at %s (is ag-fold running?)", f.path)
			}
			return snapshotSource{}, cli.ExitNoMatch
		case err != nil:
			f.prog.Errorf("%s: %v", f.path, err)
			return snapshotSource{}, cli.ExitError
		}
		j := state.Here()
		kept, _ := j.Current(file)
		j.Mark(file)
		states := file.Sessions
		for i := range states {
			// What the fold keeps beyond a state (the file's "fold"
			// member) is for a restarted ag-fold, not for readers.
			states[i].Extra = nil
		}
		src := snapshotSource{states: states, kept: kept}
		for i := range states {
			src.places = append(src.places, cli.Place{What: f.path + ": session " + itoa(i+1)})
		}
		return src, cli.ExitOK
	}
	// Read in the background: a signal ends the snapshot even while
	// stdin has nothing to say.
	type result struct {
		src snapshotSource
		err error
	}
	done := make(chan result, 1)
	go func() {
		r := f.prog.NewReader(in, "<stdin>")
		lines := map[placeKey]int{} // session → the line that last changed it
		var e event.Event
		var err error
		for {
			if _, err = r.Next(&e); err != nil {
				break
			}
			if r.Line()%1024 == 1 { // the clock for dates ahead; a replay is all past
				f.fold.SetNow(f.now())
			}
			for _, s := range f.fold.Apply(&e) {
				lines[placeOf(&s)] = r.Line()
			}
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
		f.settle()
		src := snapshotSource{states: f.fold.States(), bad: r.Bad, kept: true}
		for i := range src.states {
			src.places = append(src.places, statePlace(&src.states[i], lines[placeOf(&src.states[i])]))
		}
		done <- result{src, err}
	}()
	select {
	case <-ctx.Done():
		return snapshotSource{}, cli.ExitInterrupted
	case r := <-done:
		if r.err != nil {
			f.prog.Errorf("<stdin>: %v", r.err)
			return snapshotSource{}, cli.ExitError
		}
		return r.src, cli.ExitOK
	}
}

// placeKey is a session as the input lines name it (a struct: a string
// joined for every state change was 4 % of a replay's fold).
type placeKey struct{ agent, session, pane string }

func placeOf(s *event.Event) placeKey { return placeKey{s.Agent, s.Session, s.Pane} }

// statePlace is where a state came from: the input line that last changed
// it, else (a --check, the end of input) the session it is.
func statePlace(s *event.Event, line int) cli.Place {
	if line > 0 {
		return cli.Place{Name: "<stdin>", Line: line}
	}
	who := s.Session
	if who == "" {
		who = "pane " + s.Pane
	}
	return cli.Place{What: "the state of " + s.Agent + " " + who}
}

// snapshot prints the states folded from stdin, or the state file's.
func (f *folder) snapshot(ctx context.Context, stdin io.Reader) int {
	src, code := f.load(ctx, stdin, false)
	if code != cli.ExitOK {
		return code
	}
	for i := range src.states {
		if code, stop := f.put(&src.states[i], src.places[i]); stop {
			return code
		}
	}
	if err := f.filter.Flush(f.out); err != nil {
		if code, stop := f.writeFailed(err, cli.Place{What: "--slurp"}); stop {
			return code
		}
	}
	if err := f.stdout.Flush(); err != nil && !cli.IsClosedPipe(err) {
		f.prog.Errorf("%v", err)
		return cli.ExitError
	}
	switch {
	case src.bad > 0 || f.filter.Failed() > 0:
		return cli.ExitError
	case !f.wrote:
		return cli.ExitNoMatch
	}
	return cli.ExitOK
}

// put writes one state through the filter; stop says the run is over.
func (f *folder) put(s *event.Event, at cli.Place) (code int, stop bool) {
	if err := f.filter.Write(f.out, s); err != nil {
		return f.writeFailed(err, at)
	}
	return cli.ExitOK, false
}

// writeFailed reports an expression that failed on one event (and goes
// on), or ends the run: a reader that went away quietly, the program
// asked to stop, any other write error as an error.
func (f *folder) writeFailed(err error, at cli.Place) (code int, stop bool) {
	switch {
	case evfilter.IsExprError(err):
		f.prog.Errorf("%s: %v", at, err)
		return cli.ExitOK, false
	case cli.IsClosedPipe(err):
		return cli.ExitOK, true
	case errors.Is(err, context.Canceled):
		return cli.ExitInterrupted, true
	}
	f.prog.Errorf("%v", err)
	return cli.ExitError, true
}
