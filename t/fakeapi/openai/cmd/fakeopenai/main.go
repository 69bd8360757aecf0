// fakeopenai runs the fake OpenAI Responses API for manual runs of the real
// Codex CLI: it prints the base URL, logs each request to stderr and, with
// -trace FILE, every request body to FILE; -input-tokens N makes every
// reply report N input tokens. Ctrl-C stops it.
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
	"github.com/agwatch/ag/t/fakeapi/openai"
	"github.com/agwatch/ag/t/fakeapi/serve"
)

func main() {
	serve.Main("fakeopenai", func(f serve.Flags) (serve.Fake, error) {
		return openai.Start(openai.Options{Trace: f.Trace, InputTokens: f.InputTokens})
	})
}
