// fakegemini runs the fake Gemini API for manual runs of the real Gemini
// CLI: it prints the base URL, logs each request to stderr and, with
// -trace FILE, every request body to FILE; -input-tokens N makes every
// reply report N prompt tokens. Ctrl-C stops it. t/fakeapi/README.md
// shows the settings that drive the CLI against it.
//
//	go run ./t/fakeapi/gemini/cmd/fakegemini -trace /tmp/bodies.ndjson
//	GOOGLE_GEMINI_BASE_URL=<printed url> GEMINI_API_KEY=fake gemini
package main

import (
	"github.com/agwatch/ag/t/fakeapi/gemini"
	"github.com/agwatch/ag/t/fakeapi/serve"
)

func main() {
	serve.Main("fakegemini", func(f serve.Flags) (serve.Fake, error) {
		return gemini.Start(gemini.Options{Trace: f.Trace, InputTokens: f.InputTokens})
	})
}
