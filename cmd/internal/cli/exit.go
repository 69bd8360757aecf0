// Package cli is the plumbing every ag program shares: flag parsing with
// generated --help and --man, exit codes, prefixed errors, the NDJSON reader
// and writer, and the --where/--jq filter.
package cli

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// Exit codes, the same for every ag program (README, Conventions):
//
//	0    did its job
//	1    nothing matched, nothing to report, or refused (a normal answer)
//	2    an error: bad usage, a line that is not an event, a file it
//	     could not read or write, a jq runtime error
//	130  stopped by SIGINT (Ctrl-C)
//	143  stopped by SIGTERM
//
// 130 and 143 are 128 + the signal, what a shell reports for a process the
// signal killed, so a pipeline that stops a stage reads the same code
// whether the stage caught the signal or not.
const (
	ExitOK          = 0
	ExitNoMatch     = 1
	ExitError       = 2
	ExitInterrupted = 130 // 128 + SIGINT
	ExitTerminated  = 143 // 128 + SIGTERM
)

// Signals is the context a program runs under: cancelled by SIGINT or
// SIGTERM. exit turns a run's ExitInterrupted into the code of the signal
// that stopped it (143 for SIGTERM) and stops listening.
func Signals() (ctx context.Context, exit func(code int) int) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	var got atomic.Value
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			got.Store(s)
			cancel()
		case <-done:
		}
	}()
	return ctx, func(code int) int {
		signal.Stop(ch)
		close(done)
		cancel()
		if code == ExitInterrupted && got.Load() == syscall.SIGTERM {
			return ExitTerminated
		}
		return code
	}
}
