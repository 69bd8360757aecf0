package serve

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

// Tail is the body of a fake's command: it prints the server's URL on
// stdout, then each request it answers on stderr, until ctx ends.
func Tail[R fmt.Stringer](ctx context.Context, s *Server[R], stdout, stderr io.Writer) {
	fmt.Fprintln(stdout, s.URL)
	seen := 0
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			reqs := s.Requests()
			for _, r := range reqs[seen:] {
				fmt.Fprintln(stderr, r)
			}
			seen = len(reqs)
		}
	}
}

// Command runs a fake's command line: it parses -trace FILE and the flags
// that flags adds, starts the server with start, prints its URL, tails its
// log until ctx ends and returns the exit code (2 for a usage or start
// error).
func Command[R fmt.Stringer](ctx context.Context, name string, args []string, stdout, stderr io.Writer,
	flags func(*flag.FlagSet), start func(trace io.Writer) (*Server[R], error)) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	trace := fs.String("trace", "", "append every request body to `file`")
	if flags != nil {
		flags(fs)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var tw io.Writer
	if *trace != "" {
		f, err := os.OpenFile(*trace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(stderr, name+":", err)
			return 2
		}
		defer f.Close()
		tw = f
	}
	srv, err := start(tw)
	if err != nil {
		fmt.Fprintln(stderr, name+":", err)
		return 2
	}
	defer srv.Close()
	Tail(ctx, srv, stdout, stderr)
	return 0
}
