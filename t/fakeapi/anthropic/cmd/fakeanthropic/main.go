// fakeanthropic runs the fake Anthropic Messages API for manual runs of the
// real Claude Code CLI: it prints the base URL, logs each request to stderr
// and, with -trace FILE, every request body to FILE. Ctrl-C stops it.
//
//	go run ./t/fakeapi/anthropic/cmd/fakeanthropic -trace /tmp/bodies.ndjson
//	ANTHROPIC_BASE_URL=<printed url> ANTHROPIC_API_KEY=sk-ant-fake-... claude
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agwatch/ag/t/fakeapi/anthropic"
	"github.com/agwatch/ag/t/fakeapi/serve"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return serve.Command(ctx, "fakeanthropic", args, stdout, stderr, nil,
		func(trace io.Writer) (*serve.Server[anthropic.Request], error) {
			s, err := anthropic.Start(anthropic.Options{Trace: trace})
			if err != nil {
				return nil, err
			}
			return s.Server, nil
		})
}
