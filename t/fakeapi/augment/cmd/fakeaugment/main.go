// fakeaugment runs the fake Augment backend for manual runs of the real
// Auggie CLI: it prints the base URL, logs each request to stderr and,
// with -trace FILE, every request body to FILE; -input-tokens N makes
// every reply report N input tokens. Ctrl-C stops it.
// t/fakeapi/README.md shows the settings that drive Auggie against it.
//
//	go run ./t/fakeapi/augment/cmd/fakeaugment -trace /tmp/bodies.ndjson
//	AUGMENT_SESSION_AUTH='{"accessToken":"fake","tenantURL":"<printed url>/"}' auggie
package main

import (
	"github.com/agwatch/ag/t/fakeapi/augment"
	"github.com/agwatch/ag/t/fakeapi/serve"
)

func main() {
	serve.Main("fakeaugment", func(f serve.Flags) (serve.Fake, error) {
		return augment.Start(augment.Options{Trace: f.Trace, InputTokens: f.InputTokens})
	})
}
