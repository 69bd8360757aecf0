package web

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/safetext/safetexttest"
	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/provider"
)

var agents = notify.Agents{
	Name: func(id string) string { return providers.ByID(id).Name() },
	Keys: func(id string) (provider.KeyMap, bool) {
		k, ok := providers.ByID(id).(provider.Keyed)
		if !ok {
			return provider.KeyMap{}, false
		}
		return k.Keys(), true
	},
}

// page is a server on 127.0.0.1 and what it handed ag-notify.
type page struct {
	t   *testing.T
	s   *Server
	dir string
	mu  sync.Mutex
	now time.Time
	got []string // presses: action/text/token
}

func newPage(t *testing.T) *page {
	t.Helper()
	p := &page{t: t, dir: t.TempDir(), now: time.Now()}
	s, err := New(Config{Addr: "127.0.0.1:0", Dir: p.dir, Agents: agents,
		Now: func() time.Time { p.mu.Lock(); defer p.mu.Unlock(); return p.now },
		Log: func(string, ...any) {},
		Press: func(n *notify.Note, action, text string) bool {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.got = append(p.got, action+"/"+text+"/"+n.Token)
			return true
		}})
	if err != nil {
		t.Fatal(err)
	}
	// Listening on port 0: the address the browser uses is the real one.
	addr := s.ln.Addr().String()
	s.url, _ = url.Parse("http://" + addr)
	s.allow("http", addr)
	s.Serve()
	t.Cleanup(s.Close)
	p.s = s
	return p
}

func (p *page) advance(d time.Duration) { p.mu.Lock(); p.now = p.now.Add(d); p.mu.Unlock() }

func (p *page) presses() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

func waitState(sess, attn, token string) *event.Event {
	e := event.New(event.State, time.Now(), "claude", sess)
	e.Src, e.Status, e.Attention, e.Token, e.Pane, e.Cwd = event.SrcFold, event.StatusWaiting, attn, token, "%3", "/src/shop"
	e.Tool, e.Text = "Bash", "rm -rf build"
	return &e
}

// browser is an HTTP client with a cookie jar, as a paired browser is.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
	csrf string
}

func (p *page) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: p.t, base: p.s.URL(), c: &http.Client{Jar: jar, Timeout: 10 * time.Second}}
}

func (b *browser) do(method, path, body string, hdr map[string]string) (int, string, http.Header) {
	b.t.Helper()
	req, _ := http.NewRequest(method, b.base+path, strings.NewReader(body))
	req.Header.Set("Origin", b.base)
	if b.csrf != "" {
		req.Header.Set(csrfHeader, b.csrf)
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out), resp.Header
}

// pair trades the pairing link's code for the cookie, then reads the
// CSRF token as the page does.
func (b *browser) pair(link string) {
	b.t.Helper()
	_, code, _ := strings.Cut(link, "#")
	st, body, h := b.do("POST", "/api/pair", `{"code":"`+code+`","name":"test"}`, nil)
	if st != 200 {
		b.t.Fatalf("pair: %d %s", st, body)
	}
	c := h.Get("Set-Cookie")
	for _, want := range []string{cookieName + "=", "HttpOnly", "SameSite=Strict", "Max-Age=", "Path=/"} {
		if !strings.Contains(c, want) {
			b.t.Errorf("cookie %q lacks %s", c, want)
		}
	}
	st, body, _ = b.do("GET", "/api/me", "", nil)
	var me struct{ CSRF string }
	if st != 200 || json.Unmarshal([]byte(body), &me) != nil || me.CSRF == "" {
		b.t.Fatalf("me: %d %s", st, body)
	}
	b.csrf = me.CSRF
}

func (b *browser) press(id, token, button string) (int, string) {
	st, body, _ := b.do("POST", "/api/press", `{"id":"`+id+`","token":"`+token+`","button":"`+button+`"}`, nil)
	return st, body
}

// TestPairingAndChecks: a one-time link pairs once; every act needs the
// cookie, the page's origin, the CSRF token, a known Host, the current
// token, and is answered once.
func TestPairingAndChecks(t *testing.T) {
	p := newPage(t)
	link := p.s.PairURL(0)
	b := p.browser()
	b.pair(link)
	if st, body, _ := p.browser().do("POST", "/api/pair", `{"code":"`+strings.SplitN(link, "#", 2)[1]+`"}`, nil); st != 403 || !strings.Contains(body, "used already") {
		t.Errorf("the link used twice: %d %s", st, body)
	}

	w := waitState("s1", event.AttnPermission, "100.2")
	p.s.Observe(w)
	id := sessionID("", "claude", "s1")

	stranger := p.browser()
	for _, tc := range []struct {
		name string
		b    *browser
		hdr  map[string]string
		want int
	}{
		{"no cookie", stranger, nil, 401},
		{"wrong origin", b, map[string]string{"Origin": "http://evil.example"}, 403},
		{"no origin", b, map[string]string{"Origin": ""}, 403},
		{"no CSRF token", b, map[string]string{csrfHeader: ""}, 403},
		{"another device's CSRF token", b, map[string]string{csrfHeader: p.s.auth.csrf("other")}, 403},
		{"DNS rebinding", b, map[string]string{"Host": "evil.example"}, 421},
	} {
		body := `{"id":"` + id + `","token":"100.2","button":"approve"}`
		req, _ := http.NewRequest("POST", tc.b.base+"/api/press", strings.NewReader(body))
		req.Header.Set("Origin", tc.b.base)
		req.Header.Set(csrfHeader, tc.b.csrf)
		for k, v := range tc.hdr {
			if k == "Host" {
				req.Host = v
			} else if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := tc.b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
	if len(p.presses()) != 0 {
		t.Fatalf("a refused request pressed: %v", p.presses())
	}

	if st, body := b.press(id, "100.1", "approve"); st != 409 || !strings.Contains(body, "stale") {
		t.Errorf("an old token: %d %s", st, body)
	}
	if st, body := b.press(id, "100.2", "approve"); st != 202 || !strings.Contains(body, "Approve") {
		t.Fatalf("press: %d %s", st, body)
	}
	if st, body := b.press(id, "100.2", "approve"); st != 409 || !strings.Contains(body, "already answered") {
		t.Errorf("the press replayed: %d %s", st, body)
	}
	if got := p.presses(); len(got) != 1 || got[0] != "approve//100.2" {
		t.Errorf("presses %v, want one approve on 100.2", got)
	}

	// Enough presses and the device is held back.
	codes := map[int]int{}
	for range actBurst + 2 {
		st, _ := b.press(id, "100.2", "approve")
		codes[st]++
	}
	if codes[429] == 0 {
		t.Errorf("no 429 after %d presses: %v", actBurst+2, codes)
	}
}

// TestOptionsAndReply: a question's options are its buttons; one pressed
// answers with its label; a reply goes as typed, cleaned.
func TestOptionsAndReply(t *testing.T) {
	p := newPage(t)
	b := p.browser()
	b.pair(p.s.PairURL(0))
	q := waitState("q", event.AttnQuestion, "5.1")
	q.Tool, q.Text, q.Options = "AskUserQuestion", "Colour?", []string{"Red", "Green"}
	p.s.Observe(q)
	id := sessionID("", "claude", "q")
	v := p.s.sessions[id].view
	if len(v.Buttons) != 2 || v.Buttons[1] != (ViewButton{"option-2", "Green"}) || v.Reply != "answer" {
		t.Fatalf("view buttons %+v reply %q", v.Buttons, v.Reply)
	}
	if st, body := b.press(id, "5.1", "option-2"); st != 202 {
		t.Fatalf("option: %d %s", st, body)
	}
	q.Token, q.Options = "5.2", nil
	p.s.Observe(q)
	st, body, _ := b.do("POST", "/api/press", `{"id":"`+id+`","token":"5.2","button":"reply","text":"blue\u001b[2J, please"}`, nil)
	if st != 202 {
		t.Fatalf("reply: %d %s", st, body)
	}
	if got := p.presses(); len(got) != 2 || got[0] != "answer/Green/5.1" || got[1] != "answer/blue[2J, please/5.2" {
		t.Errorf("presses %q", got)
	}
}

// TestRevoke: a device revoked in the file (ag-notify --web-revoke, from
// another process) is cut off at once: its stream says so and ends, its
// requests are refused.
func TestRevoke(t *testing.T) {
	p := newPage(t)
	b := p.browser()
	b.pair(p.s.PairURL(0))
	resp, err := b.c.Get(b.base + "/api/events")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("events: %v %v", err, resp)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	next := func() string {
		for lines.Scan() {
			if l := lines.Text(); strings.HasPrefix(l, "event: ") {
				return strings.TrimPrefix(l, "event: ")
			}
		}
		return "<end>"
	}
	if e := next(); e != "snapshot" {
		t.Fatalf("first event %q", e)
	}
	p.s.Observe(waitState("s1", event.AttnPermission, "1.1"))
	if e := next(); e != "put" {
		t.Fatalf("second event %q", e)
	}
	if n, err := Revoke(p.dir, "all"); n != 1 || err != nil {
		t.Fatalf("Revoke: %d %v", n, err)
	}
	if e := next(); e != "revoked" {
		t.Errorf("after revoke: %q", e)
	}
	if e := next(); e != "<end>" {
		t.Errorf("the stream went on: %q", e)
	}
	if st, _, _ := b.do("GET", "/api/me", "", nil); st != 401 {
		t.Errorf("a revoked device: %d", st)
	}
}

// TestCapabilities: a push notification's button URL, POSTed by a plain
// HTTP client as ntfy's app does: once; not after its time; not once the
// wait moved on; never forged.
func TestCapabilities(t *testing.T) {
	p := newPage(t)
	w := waitState("s1", event.AttnPermission, "7.1")
	p.s.Observe(w)
	n := agents.Build(notify.KindWaiting, w)
	post := func(u string) (int, string) {
		resp, err := http.Post(u, "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	approve, deny := p.s.Capability(n, "approve"), p.s.Capability(n, "deny")
	if !strings.HasPrefix(approve, p.s.URL()+"/c/") {
		t.Fatalf("capability %q", approve)
	}
	if st, body := post(approve); st != 202 || body != "Approve: sent" {
		t.Fatalf("first press: %d %q", st, body)
	}
	if st, body := post(approve); st != 410 || !strings.Contains(body, "pressed already") {
		t.Errorf("the same capability again: %d %q", st, body)
	}
	if st, body := post(deny); st != 410 || !strings.Contains(body, "already answered") {
		t.Errorf("the other button on an answered wait: %d %q", st, body)
	}
	// Forged: another payload under the signature, a signature made with
	// another key, garbage.
	pl, sig, _ := strings.Cut(strings.TrimPrefix(deny, p.s.URL()+"/c/"), ".")
	other := newCaps([]byte("another key, another ag-notify.."), time.Now).mint(sessionID("", "claude", "s1"), "7.1", "deny")
	for _, f := range []string{pl + "x." + sig, other, "nonsense"} {
		if st, _ := post(p.s.URL() + "/c/" + f); st != 403 {
			t.Errorf("forged %q: %d, want 403", f, st)
		}
	}
	// The wait moves on: a capability for the old one is spent.
	old := p.s.Capability(n, "deny")
	w.Token = "7.2"
	p.s.Observe(w)
	fresh := p.s.Capability(agents.Build(notify.KindWaiting, w), "deny")
	if st, body := post(old); st != 410 || !strings.Contains(body, "moved on") {
		t.Errorf("a capability of an old wait: %d %q", st, body)
	}
	p.advance(capTTL + time.Second)
	if st, body := post(fresh); st != 410 || !strings.Contains(body, "expired") {
		t.Errorf("an expired capability: %d %q", st, body)
	}
	if got := p.presses(); len(got) != 1 || got[0] != "approve//7.1" {
		t.Errorf("presses %v, want the one approve", got)
	}
}

// TestNotLoopback: off loopback the page needs TLS or a proxy's word.
func TestNotLoopback(t *testing.T) {
	_, err := New(Config{Addr: "0.0.0.0:0", Dir: t.TempDir(), Log: func(string, ...any) {}})
	if err == nil || !strings.Contains(err.Error(), "--web-cert") {
		t.Errorf("0.0.0.0 without TLS: %v", err)
	}
	_, err = New(Config{Addr: "0.0.0.0:0", Proxy: true, URL: "http://box:7780", Dir: t.TempDir(), Log: func(string, ...any) {}})
	if err == nil || !strings.Contains(err.Error(), "https") {
		t.Errorf("--web-proxy with an http URL: %v", err)
	}
}

// TestHostileText: nothing an agent writes reaches the page as an escape,
// a control or a bidi override, in any field, whatever it is.
func TestHostileText(t *testing.T) {
	p := newPage(t)
	for i, h := range safetexttest.Hostile {
		e := waitState("h"+strconv.Itoa(i), event.AttnQuestion, "1.1")
		e.Tool, e.Text, e.Cwd, e.Branch, e.Model = h, h, "/src/"+h, h, h
		if i%2 == 0 {
			e.Host = "box" // out of reach below: stale, no buttons
		}
		e.Options = []string{h, "ok"}
		p.s.Observe(e)
	}
	p.s.hostDown("box")
	for _, v := range p.s.snapshot() {
		b, _ := json.Marshal(v)
		var back View
		json.Unmarshal(b, &back)
		fields := []string{back.Name, back.Host, back.Project, back.Branch, back.Subtitle, back.Model, back.Stale}
		for _, b := range back.Buttons {
			fields = append(fields, b.Label)
		}
		for _, f := range fields {
			if i, c := safetexttest.Find(f, false); i >= 0 {
				t.Errorf("%q holds %s", f, c)
			}
		}
		if i, c := safetexttest.Find(back.Text, true); i >= 0 {
			t.Errorf("text %q holds %s", back.Text, c)
		}
	}
}

// TestBackgroundOpen: a background session's wait offers Open (the open
// action: a tmux window attached to it), not keys it has no pane for.
func TestBackgroundOpen(t *testing.T) {
	p := newPage(t)
	b := p.browser()
	b.pair(p.s.PairURL(0))
	e := waitState("bg", event.AttnPermission, "8.1")
	e.Pane, e.Where, e.Job = "", event.WhereBackground, "b0872257"
	p.s.Observe(e)
	id := sessionID("", "claude", "bg")
	v := p.s.sessions[id].view
	if len(v.Buttons) != 1 || v.Buttons[0] != (ViewButton{"open", "Open"}) || v.Reply != "" || !v.Background {
		t.Fatalf("background view: buttons %+v reply %q", v.Buttons, v.Reply)
	}
	if st, body := b.press(id, "8.1", "approve"); st != 400 {
		t.Errorf("approve on a background session: %d %s", st, body)
	}
	if st, body := b.press(id, "8.1", "open"); st != 202 {
		t.Fatalf("open: %d %s", st, body)
	}
	if got := p.presses(); len(got) != 1 || got[0] != "open//8.1" {
		t.Errorf("presses %q", got)
	}
}
