//go:build e2e

package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/t/internal/browser"
	"github.com/chromedp/chromedp"
)

// TestClaudeWebApprove answers a real Claude Code permission prompt from
// the answer page in a real headless Chromium: the login pipeline with
// ag-notify --web, the browser paired with the link ag-notify printed,
// the wait shown with the command, Approve clicked, ag-keys typing it into
// Claude's pane (its keys event shown on the page), and the command run.
func TestClaudeWebApprove(t *testing.T) {
	t.Parallel()
	browser.Path(t)
	bin := Install(t, Claude)
	CheckVersion(t, bin, Claude.Version)
	h := New(t)
	h.FakeAnthropic()
	h.ClaudeConfig()
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "claude")
	sock := filepath.Join(h.Root, "tmux.sock")
	keysFile := filepath.Join(h.Root, "keys.ndjson")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	// ... | ag-notify --web | ag-keys --pass | tee -a keys.ndjson: the page
	// follows the file for ag-keys' keys events; the states pass on for the
	// test to watch.
	pl := h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"},
		[]string{"ag-notify", "--backend", "web", "-S", sock, "--web", addr, "--web-keys", keysFile},
		[]string{"/bin/sh", "-c", `"$0" --pass -S "$1" | tee -a "$2"`, Bin(t, "ag-keys"), sock, keysFile})
	tm := h.StartTmux()
	var link string
	deadline := time.Now().Add(20 * time.Second)
	for link == "" && time.Now().Before(deadline) {
		b, _ := os.ReadFile(pl.Stages[2].Stderr)
		for _, line := range strings.Split(string(b), "\n") {
			if u, ok := strings.CutPrefix(line, "ag-notify: pair a browser (once) with "); ok {
				link = u
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if link == "" {
		t.Fatal("ag-notify printed no pairing link")
	}

	ctx := browser.Start(t, 3*time.Minute)
	browser.Do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait),
		chromedp.Navigate(link))
	browser.Until(t, ctx, 20*time.Second, "paired and live", `location.pathname === '/' && document.getElementById('live').textContent === 'live'`)

	p := tm.NewPane("web", h.Project, nil, bin)
	p.WaitText(90*time.Second, ClaudeIdle)
	st := pl.Out.Await(t, "the session's state", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == claude.ID && e.Pane == p.ID && e.Session != ""
	})
	s := pl.Out.Session(claude.ID, st.Session)
	const cmd = "echo from-the-phone > web.txt"
	p.Type("RUN: " + cmd)
	wt := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	p.WaitText(10*time.Second, ClaudePermission)
	card := "#s-" + event.MakeID("web", hostname.Of(h.Getenv).Canon(wt.Host), claude.ID, wt.Session)
	browser.Until(t, ctx, 20*time.Second, "the wait on the page", `(c => c && c.dataset.token === '`+wt.Token+`' &&
		c.querySelector('.text').textContent === '`+cmd+`' && !!c.querySelector('button[data-b=approve]'))(document.querySelector('`+card+`'))`)
	// No one clicks before ag-fold's state file holds the wait.
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, p.ID)
		return ok && st.Token == wt.Token
	}, "the wait's token "+wt.Token)
	clicked := time.Now()
	browser.Do(t, ctx, chromedp.Click(chromedp.CSS(card+` button[data-b=approve]`)))
	browser.Until(t, ctx, 20*time.Second, "ag-keys' answer on the page", `document.querySelector('`+card+` .result').textContent.startsWith('Typed: 1')`)
	t.Logf("click → ag-keys' answer on the page: %s", time.Since(clicked).Round(time.Millisecond))
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(filepath.Join(h.Project, "web.txt")); err != nil || string(b) != "from-the-phone\n" {
		t.Errorf("the approved command did not run: web.txt %q, %v", b, err)
	}
	browser.Until(t, ctx, 20*time.Second, "the session finished on the page", `document.querySelector('`+card+`').dataset.status === 'done'`)
}
