// fakeanthropic runs the fake Anthropic Messages API for manual runs of the
// real Claude Code CLI: it prints the base URL, logs each request to stderr
// and, with -trace FILE, every request body to FILE. Ctrl-C stops it.
//
//	go run ./t/fakeapi/anthropic/cmd/fakeanthropic -trace /tmp/bodies.ndjson
//	ANTHROPIC_BASE_URL=<printed url> ANTHROPIC_API_KEY=sk-ant-fake-... claude
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agwatch/ag/t/fakeapi/anthropic"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakeanthropic", flag.ContinueOnError)
	fs.SetOutput(stderr)
	trace := fs.String("trace", "", "append every request body to `file`")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var opts anthropic.Options
	if *trace != "" {
		f, err := os.OpenFile(*trace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(stderr, "fakeanthropic:", err)
			return 2
		}
		defer f.Close()
		opts.Trace = f
	}
	srv, err := anthropic.Start(opts)
	if err != nil {
		fmt.Fprintln(stderr, "fakeanthropic:", err)
		return 2
	}
	defer srv.Close()
	fmt.Fprintln(stdout, srv.URL)
	seen := 0
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return 0
		case <-tick.C:
			reqs := srv.Requests()
			for _, r := range reqs[seen:] {
				fmt.Fprintln(stderr, r)
			}
			seen = len(reqs)
		}
	}
}
