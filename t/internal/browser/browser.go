// Package browser is a real headless Chromium for the tests of ag-notify's
// answer page, driven over the DevTools protocol (chromedp): Debian's
// chromium, a fresh profile, kept off the network.
package browser

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Path finds the browser, or skips the test: it needs Debian's chromium
// package (apt-get install chromium).
func Path(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH (Debian's chromium package): the answer page's browser tests need it")
	return ""
}

// Start is a fresh headless Chromium with its own profile, which neither
// phones home nor fetches updates (nothing but 127.0.0.1 answers here),
// ended with the test; the context times out after limit.
func Start(t testing.TB, limit time.Duration) context.Context {
	t.Helper()
	bin := Path(t)
	alloc, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()))
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(alloc)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, limit)
	t.Cleanup(cancel3)
	return ctx
}

// Do runs the steps, failing the test on an error.
func Do(t testing.TB, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// JS is the value of a JavaScript expression in the page (a promise
// awaited).
func JS[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// Until evaluates a predicate in the page every 20 ms until it holds, for
// at most limit, failing with what the page shows; a page navigating
// meanwhile (pairing ends on /) is asked again.
func Until(t testing.TB, ctx context.Context, limit time.Duration, what, pred string) {
	t.Helper()
	var err error
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		var ok bool
		if ok, err = chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+pred+")")); ok && err == nil {
			return
		}
	}
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	t.Fatalf("%s: never in %s (%v); the page shows:\n%s", what, limit, err, text)
}
