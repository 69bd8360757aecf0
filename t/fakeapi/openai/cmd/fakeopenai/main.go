// fakeopenai runs the fake OpenAI Responses API for manual runs of the real
// Codex CLI: it prints the base URL, logs each request to stderr and, with
// -trace FILE, every request body to FILE. Ctrl-C stops it.
//
//	go run ./t/fakeapi/openai/cmd/fakeopenai -trace /tmp/bodies.ndjson
//
// Then, in $CODEX_HOME/config.toml:
//
//	model = "fake-model"
//	model_provider = "fake"
//	approval_policy = "on-request"
//	[model_providers.fake]
//	name = "Fake"
//	base_url = "<printed url>/v1"
//	wire_api = "responses"
//	env_key = "FAKE_API_KEY"
//
// and run FAKE_API_KEY=fake codex.
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

	"github.com/agwatch/ag/t/fakeapi/openai"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakeopenai", flag.ContinueOnError)
	fs.SetOutput(stderr)
	trace := fs.String("trace", "", "append every request body to `file`")
	input := fs.Int64("input-tokens", 0, "input_tokens every reply reports (0: estimate)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opts := openai.Options{InputTokens: *input}
	if *trace != "" {
		f, err := os.OpenFile(*trace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(stderr, "fakeopenai:", err)
			return 2
		}
		defer f.Close()
		opts.Trace = f
	}
	srv, err := openai.Start(opts)
	if err != nil {
		fmt.Fprintln(stderr, "fakeopenai:", err)
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
