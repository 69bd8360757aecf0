// Package servetest holds what the fakes' own tests share: a JSON POST,
// and a request checked against the answer it must get.
package servetest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// Post sends body to url as JSON with the header pairs given; the
// response is closed when the test ends.
func Post(t testing.TB, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// Check sends one request to base+path and checks its answer: status,
// and a body that holds want.
func Check(t testing.TB, base, method, path, body string, status int, want string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != status || !strings.Contains(string(b), want) {
		t.Errorf("%s %s: %d %q; want %d with %q", method, path, resp.StatusCode, b, status, want)
	}
}
