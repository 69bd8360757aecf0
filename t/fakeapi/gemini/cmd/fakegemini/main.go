// fakegemini runs the fake Gemini API for manual runs of the real Gemini
// CLI: it prints the base URL, logs each request to stderr and, with
// -trace FILE, every request body to FILE. Ctrl-C stops it.
// t/fakeapi/README.md shows the settings that drive the CLI against it.
//
//	go run ./t/fakeapi/gemini/cmd/fakegemini -trace /tmp/bodies.ndjson
//	GOOGLE_GEMINI_BASE_URL=<printed url> GEMINI_API_KEY=fake gemini
package main

import (
	"context"
	"flag"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agwatch/ag/t/fakeapi/gemini"
	"github.com/agwatch/ag/t/fakeapi/serve"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var input int64
	return serve.Command(ctx, "fakegemini", args, stdout, stderr,
		func(fs *flag.FlagSet) {
			fs.Int64Var(&input, "input-tokens", 0, "promptTokenCount every reply reports (0: estimate)")
		},
		func(trace io.Writer) (*serve.Server[gemini.Request], error) {
			s, err := gemini.Start(gemini.Options{Trace: trace, InputTokens: input})
			if err != nil {
				return nil, err
			}
			return s.Server, nil
		})
}
