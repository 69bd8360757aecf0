// fakeanthropic runs the fake Anthropic Messages API for manual runs of the
// real Claude Code CLI: it prints the base URL, logs each request to stderr
// and, with -trace FILE, every request body to FILE; -input-tokens N
// makes every reply report N prompt tokens. Ctrl-C stops it.
//
//	go run ./t/fakeapi/anthropic/cmd/fakeanthropic -trace /tmp/bodies.ndjson
//	ANTHROPIC_BASE_URL=<printed url> ANTHROPIC_API_KEY=sk-ant-fake-... claude
package main

import (
	"github.com/agwatch/ag/t/fakeapi/anthropic"
	"github.com/agwatch/ag/t/fakeapi/serve"
)

func main() {
	serve.Main("fakeanthropic", func(f serve.Flags) (serve.Fake, error) {
		return anthropic.Start(anthropic.Options{Trace: f.Trace, InputTokens: f.InputTokens})
	})
}
