// fakechat runs the fake OpenAI Chat Completions API for manual runs of
// the agent CLIs that speak it: it prints the base URL, logs each request
// to stderr and, with -trace FILE, every request body to FILE. Ctrl-C
// stops it. t/fakeapi/README.md shows each agent's configuration.
//
//	go run ./t/fakeapi/chat/cmd/fakechat -trace /tmp/bodies.ndjson
//	COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL=<printed url>/v1 \
//	  COPILOT_PROVIDER_API_KEY=fake COPILOT_MODEL=fake-model copilot
package main

import (
	"context"
	"flag"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agwatch/ag/t/fakeapi/chat"
	"github.com/agwatch/ag/t/fakeapi/serve"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var input int64
	return serve.Command(ctx, "fakechat", args, stdout, stderr,
		func(fs *flag.FlagSet) {
			fs.Int64Var(&input, "input-tokens", 0, "prompt_tokens every reply reports (0: estimate)")
		},
		func(trace io.Writer) (*serve.Server[chat.Request], error) {
			s, err := chat.Start(chat.Options{Trace: trace, InputTokens: input})
			if err != nil {
				return nil, err
			}
			return s.Server, nil
		})
}
