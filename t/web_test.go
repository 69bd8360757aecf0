package t

// The answer page in a real headless Chromium (Debian's chromium, driven
// over the DevTools protocol), against the real ag-notify --web piped into
// the real ag-keys and a real tmux server whose "agents" are cat.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/t/internal/browser"
)

// webWorld is ag-notify --web | ag-keys --pass on one tmux server with
// two cat panes (%0, %1), and the state file ag-keys checks tokens in.
type webWorld struct {
	t                *testing.T
	dir, sock, agdir string
	keys             string // ag-keys' output, which ag-notify follows
	in               io.WriteCloser
	pair             string // the pairing link ag-notify printed
	url              string
	stderr           *syncBuffer
}

func newWebWorld(t *testing.T) *webWorld {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	dir, err := os.MkdirTemp("", "agweb")
	if err != nil {
		t.Fatal(err)
	}
	w := &webWorld{t: t, dir: dir, sock: filepath.Join(dir, "tmux.sock"), agdir: filepath.Join(dir, "ag"),
		keys: filepath.Join(dir, "keys.ndjson"), stderr: &syncBuffer{}}
	os.MkdirAll(w.agdir, 0o700)
	t.Cleanup(func() {
		exec.Command("tmux", "-S", w.sock, "kill-server").Run()
		os.RemoveAll(dir)
	})
	w.tmux("-f", "/dev/null", "new-session", "-d", "-s", "w", "-x", "100", "-y", "20", "cat")
	w.tmux("split-window", "-t", "w", "cat")
	port := strconv.Itoa(freePort(t))
	env := append(withoutTMUX(os.Environ()), "AG_DIR="+w.agdir, "AG_HOST=vm", "HOME="+dir, "PATH="+binDir+":"+os.Getenv("PATH"))
	notify := exec.Command(filepath.Join(binDir, "ag-notify"), "--backend", "web", "--max-age", "0", "-S", w.sock,
		"--web", "127.0.0.1:"+port, "--web-keys", w.keys)
	keys := exec.Command(filepath.Join(binDir, "ag-keys"), "-S", w.sock, "--pass", "--where", `.kind != "state"`)
	notify.Env, keys.Env = env, env
	notify.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	keys.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if w.in, err = notify.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	pipe, err := notify.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	keys.Stdin = pipe
	out, err := os.OpenFile(w.keys, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	keys.Stdout, keys.Stderr = out, w.stderr
	errs, err := notify.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := notify.Start(); err != nil {
		t.Fatal(err)
	}
	if err := keys.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.in.Close()
		for _, c := range []*exec.Cmd{notify, keys} {
			syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
		}
		notify.Wait()
		keys.Wait()
		if t.Failed() {
			t.Logf("stderr:\n%s", w.stderr.String())
		}
	})
	lines := bufio.NewScanner(errs)
	for lines.Scan() {
		l := lines.Text()
		w.stderr.Write([]byte(l + "\n"))
		if u, ok := strings.CutPrefix(l, "ag-notify: pair a browser (once) with "); ok {
			w.pair = u
			break
		}
	}
	if w.pair == "" {
		t.Fatalf("ag-notify printed no pairing link:\n%s", w.stderr.String())
	}
	go io.Copy(w.stderr, errs)
	w.url = "http://127.0.0.1:" + port
	return w
}

func (w *webWorld) tmux(args ...string) string {
	w.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", w.sock}, args...)...).CombinedOutput()
	if err != nil {
		w.t.Fatalf("tmux %v: %v %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (w *webWorld) screen(pane string) string { return w.tmux("capture-pane", "-p", "-t", pane) }

// wait is a state of a session waiting: host "vm" is this machine.
func wait(host, sess, pane, attn, token, text string, options ...string) event.Event {
	e := event.New(event.State, time.Now(), "claude", sess)
	e.Src, e.Host, e.Pane, e.Cwd, e.Branch = event.SrcFold, host, pane, "/src/"+sess, "dev"
	e.Status, e.Attention, e.Token, e.Text, e.Options = event.StatusWaiting, attn, token, text, options
	since := event.At(time.Now().Add(-90 * time.Second))
	e.Since = &since
	if attn == event.AttnPermission {
		e.Tool = "Bash"
	}
	return e
}

// send writes states into ag-notify, as ag-fold does.
func (w *webWorld) send(es ...event.Event) {
	for i := range es {
		if _, err := w.in.Write(event.Marshal(&es[i])); err != nil {
			w.t.Fatal(err)
		}
	}
}

// file writes the state file ag-keys checks tokens against, kept by this
// test process as by a running ag-fold.
func (w *webWorld) file(es ...event.Event) {
	w.t.Helper()
	if err := state.Write(filepath.Join(w.agdir, "state.json"), time.Now(), state.Self(0), es); err != nil {
		w.t.Fatal(err)
	}
}

// actions is what ag-notify wrote for ag-keys: the action events.
func (w *webWorld) actions() []event.Event {
	b, _ := os.ReadFile(w.keys)
	var out []event.Event
	for _, l := range strings.Split(string(b), "\n") {
		var e event.Event
		if event.Decode([]byte(l), &e) == nil && e.Kind == event.Action {
			out = append(out, e)
		}
	}
	return out
}

func card(host, sess string) string { return "#s-" + event.MakeID("web", host, "claude", sess) }

// until is browser.Until for 20 s.
func until(t *testing.T, ctx context.Context, what, pred string) {
	t.Helper()
	browser.Until(t, ctx, 20*time.Second, what, pred)
}

// TestWebPage: pairing with the link ag-notify printed; two hosts' waits
// shown as their states arrive; Approve types 1 into the right pane
// through ag-keys; a press on a wait the state file has moved past shows
// ag-keys' refusal; a question's options are its buttons; a press
// replayed, one from another origin (same site: the cookie goes along)
// and one from a browser never paired are refused — on a desktop window
// and on a phone's 390×844 screen.
func TestWebPage(t *testing.T) {
	browser.Path(t)
	for _, vp := range []struct {
		name  string
		w, h  int64
		phone bool
	}{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}} {
		t.Run(vp.name, func(t *testing.T) {
			w := newWebWorld(t)
			ctx := browser.Start(t, 90*time.Second)
			opts := []chromedp.EmulateViewportOption{}
			if vp.phone {
				opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait, chromedp.EmulateScale(3))
			}
			browser.Do(t, ctx, chromedp.EmulateViewport(vp.w, vp.h, opts...), chromedp.Navigate(w.pair))
			until(t, ctx, "paired and live", `location.pathname === '/' && document.getElementById('live').textContent === 'live'`)
			if n := browser.JS[int](t, ctx, `document.querySelectorAll('article.s').length`); n != 0 {
				t.Fatalf("%d sessions before any state", n)
			}

			// Two hosts' waits, live.
			c1 := wait("vm", "c1", "%0", event.AttnPermission, "1000.2", "rm -rf build")
			c2 := wait("vm", "c2", "%1", event.AttnPermission, "2000.1", "make deploy")
			d1 := wait("devbox", "d1", "%5", event.AttnQuestion, "3000.1", "Which colour?", "Red", "Green")
			c2file := c2
			c2file.Token = "2000.3" // the session moved on; the page has not heard yet
			w.file(c1, c2file)
			w.send(d1)
			until(t, ctx, "devbox's question", `(() => { const c = document.querySelector('`+card("devbox", "d1")+`');
				return c && c.querySelector('.where').textContent.includes('@devbox') &&
				[...c.querySelectorAll('button.option')].map(b => b.textContent).join() === 'Red,Green'; })()`)
			w.send(c1)
			until(t, ctx, "this host's wait", `(() => { const c = document.querySelector('`+card("vm", "c1")+`');
				return c && c.querySelector('.text').textContent === 'rm -rf build' && !c.querySelector('.where').textContent.includes('@')
				&& c.querySelector('button[data-b=approve]'); })()`)

			// Approve: 1 typed into %0, and the page says so.
			browser.Do(t, ctx, chromedp.Click(chromedp.CSS(card("vm", "c1")+` button[data-b=approve]`)))
			until(t, ctx, "ag-keys' answer on the page", `document.querySelector('`+card("vm", "c1")+` .result').textContent.startsWith('Typed: 1')`)
			if s := strings.TrimSpace(w.screen("%0")); s != "1" {
				t.Fatalf("%%0 shows %q, want 1", s)
			}
			if s := strings.TrimSpace(w.screen("%1")); s != "" {
				t.Fatalf("%%1 shows %q: keys went to the wrong pane", s)
			}

			// A stale wait: ag-keys refuses, the page shows why.
			w.send(c2)
			until(t, ctx, "c2", `!!document.querySelector('`+card("vm", "c2")+` button[data-b=deny]')`)
			browser.Do(t, ctx, chromedp.Click(chromedp.CSS(card("vm", "c2")+` button[data-b=deny]`)))
			until(t, ctx, "the refusal", `(t => t.startsWith('Refused by ag-keys') && t.includes('stale'))(document.querySelector('`+card("vm", "c2")+` .result').textContent)`)
			if s := strings.TrimSpace(w.screen("%1")); s != "" {
				t.Fatalf("a stale press typed %q", s)
			}

			// The same press again, from the page itself: refused.
			replay := browser.JS[int](t, ctx, `(async () => { const me = await (await fetch('/api/me')).json();
				const r = await fetch('/api/press', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-AG-CSRF': me.csrf},
					body: JSON.stringify({id: '`+card("vm", "c1")[3:]+`', token: '1000.2', button: 'approve'})});
				return r.status; })()`)
			if replay != 409 {
				t.Errorf("the press replayed: %d, want 409", replay)
			}

			// Another origin on this site: the SameSite cookie goes along, the
			// origin check stops it.
			before := len(w.actions())
			evil := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				rw.Header().Set("Content-Type", "text/html")
				fmt.Fprintf(rw, `<script>fetch(%q, {method: 'POST', mode: 'no-cors', credentials: 'include',
					body: JSON.stringify({id: %q, token: '3000.1', button: 'option-1'})}).then(() => { window.done = 1 }, () => { window.done = 2 })</script>`,
					w.url+"/api/press", card("devbox", "d1")[3:])
			}))
			defer evil.Close()
			browser.Do(t, ctx, chromedp.Navigate(evil.URL))
			until(t, ctx, "the cross-origin request sent", `window.done > 0`)
			browser.Do(t, ctx, chromedp.Navigate(w.url))
			until(t, ctx, "back on the page", `document.getElementById('live').textContent === 'live' && !!document.querySelector('`+card("devbox", "d1")+`')`)
			if n := len(w.actions()); n != before {
				t.Fatalf("a request from another origin made an action: %v", w.actions()[before:])
			}
			// The option itself, from the page: the answer is its label.
			browser.Do(t, ctx, chromedp.Click(chromedp.CSS(card("devbox", "d1")+` button[data-b=option-2]`)))
			until(t, ctx, "the option sent", `document.querySelector('`+card("devbox", "d1")+` .result').textContent.startsWith('Green: sent')`)
			acts := w.actions()
			if a := acts[len(acts)-1]; a.Action != "answer" || a.Text != "Green" || a.Host != "devbox" || a.Token != "3000.1" {
				t.Errorf("the option's action: %s", event.Marshal(&a))
			}

			if vp.phone {
				// Fits the screen: no sideways scrolling, buttons a thumb can hit.
				if sw := browser.JS[int](t, ctx, `document.documentElement.scrollWidth`); sw > int(vp.w) {
					t.Errorf("the page is %d px wide on a %d px screen", sw, vp.w)
				}
				if h := browser.JS[int](t, ctx, `Math.min(...[...document.querySelectorAll('article button')].map(b => b.getBoundingClientRect().height))`); h < 44 {
					t.Errorf("a button %d px high: under 44", h)
				}
			}

			// A browser never paired: nothing shown, nothing answered.
			stranger, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
			defer cancel()
			browser.Do(t, stranger, chromedp.Navigate(w.url))
			until(t, stranger, "not paired", `!document.getElementById('unpaired').hidden && document.querySelectorAll('article.s').length === 0`)
			if st := browser.JS[string](t, stranger, `Promise.all(['/api/events', '/api/me'].map(u => fetch(u).then(r => r.status))).then(s => s.join())`); st != "401,401" {
				t.Errorf("a stranger's requests: %s, want 401,401", st)
			}
			if vp.phone {
				return
			}
			latency(t, ctx, w)
		})
	}
}

// latency is the figure of doc/web.md: from a state written into
// ag-notify to its card in the page's document (the browser's clock and
// ours are this machine's), median of AG_WEB_SAMPLES (20).
func latency(t *testing.T, ctx context.Context, w *webWorld) {
	n := 20
	if s, err := strconv.Atoi(os.Getenv("AG_WEB_SAMPLES")); err == nil && s > 0 {
		n = s
	}
	browser.JS[bool](t, ctx, `(() => { window.seen = {}; new MutationObserver(() => {
		const now = performance.timeOrigin + performance.now();
		for (const c of document.querySelectorAll('article.s')) if (!(c.dataset.token in seen)) seen[c.dataset.token] = now;
	}).observe(document.getElementById('list'), {childList: true, subtree: true}); return true; })()`)
	sent := map[string]time.Time{}
	for i := range n {
		tok := fmt.Sprintf("%d.%d", 5000+i, i+1)
		e := wait("vm", "lat", "%1", event.AttnPermission, tok, "sleep 1")
		sent[tok] = time.Now()
		w.send(e)
		until(t, ctx, "token "+tok, `'`+tok+`' in window.seen`)
	}
	seen := browser.JS[map[string]float64](t, ctx, `window.seen`)
	var ms []float64
	for tok, at := range sent {
		ms = append(ms, seen[tok]-float64(at.UnixNano())/1e6)
	}
	sort.Float64s(ms)
	t.Logf("state → page (loopback, headless Chromium), %d samples: median %.2f ms, p90 %.2f ms, max %.2f ms",
		n, ms[len(ms)/2], ms[len(ms)*9/10], slices.Max(ms))
}
