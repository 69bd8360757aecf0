package serve

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// Fake is a running fake server as its command sees it (each wire
// format's Server).
type Fake interface {
	BaseURL() string
	Log() string
	Close() error
}

// Flags are the options every fake's command takes.
type Flags struct {
	Trace       io.Writer // -trace FILE: every request body, one line each
	InputTokens int64     // -input-tokens N: the prompt tokens every reply reports
}

// Main is a fake's whole command: it starts the server with start, prints
// its URL, logs each request to stderr and stops at Ctrl-C.
func Main(name string, start func(Flags) (Fake, error)) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Command(ctx, name, os.Args[1:], os.Stdout, os.Stderr, start)
	stop()
	os.Exit(code)
}

// Command runs a fake's command line: it parses -trace FILE and
// -input-tokens N, starts the server with start, prints its URL, prints
// each request it answers on stderr until ctx ends and returns the exit
// code (2 for a usage or start error).
func Command(ctx context.Context, name string, args []string, stdout, stderr io.Writer, start func(Flags) (Fake, error)) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	trace := fs.String("trace", "", "append every request body to `file`")
	var f Flags
	fs.Int64Var(&f.InputTokens, "input-tokens", 0, "prompt tokens every reply reports (0: ~4 bytes of the request a token)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *trace != "" {
		tf, err := os.OpenFile(*trace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(stderr, name+":", err)
			return 2
		}
		defer tf.Close()
		f.Trace = tf
	}
	srv, err := start(f)
	if err != nil {
		fmt.Fprintln(stderr, name+":", err)
		return 2
	}
	defer srv.Close()
	fmt.Fprintln(stdout, srv.BaseURL())
	seen := 0
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return 0
		case <-tick.C:
			lines := strings.SplitAfter(srv.Log(), "\n")
			lines = lines[:len(lines)-1] // after the last newline
			for _, l := range lines[seen:] {
				io.WriteString(stderr, l)
			}
			seen = len(lines)
		}
	}
}
