// fakechat runs the fake OpenAI Chat Completions API for manual runs of
// the agent CLIs that speak it: it prints the base URL, logs each request
// to stderr and, with -trace FILE, every request body to FILE;
// -input-tokens N makes every reply report N prompt tokens. Ctrl-C stops
// it. t/fakeapi/README.md shows each agent's configuration.
//
//	go run ./t/fakeapi/chat/cmd/fakechat -trace /tmp/bodies.ndjson
//	COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL=<printed url>/v1 \
//	  COPILOT_PROVIDER_API_KEY=fake COPILOT_MODEL=fake-model copilot
package main

import (
	"github.com/agwatch/ag/t/fakeapi/chat"
	"github.com/agwatch/ag/t/fakeapi/serve"
)

func main() {
	serve.Main("fakechat", func(f serve.Flags) (serve.Fake, error) {
		return chat.Start(chat.Options{Trace: f.Trace, InputTokens: f.InputTokens})
	})
}
