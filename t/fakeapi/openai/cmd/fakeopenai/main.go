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
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agwatch/ag/t/fakeapi/openai"
	"github.com/agwatch/ag/t/fakeapi/serve"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var input int64
	return serve.Command(ctx, "fakeopenai", args, stdout, stderr,
		func(fs *flag.FlagSet) {
			fs.Int64Var(&input, "input-tokens", 0, "input_tokens every reply reports (0: estimate)")
		},
		func(trace io.Writer) (*serve.Server[openai.Request], error) {
			s, err := openai.Start(openai.Options{Trace: trace, InputTokens: input})
			if err != nil {
				return nil, err
			}
			return s.Server, nil
		})
}
