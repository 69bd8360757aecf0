package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/notify"
)

// ntfyAction is one action as ntfy's documented simple format reads it
// (docs.ntfy.sh/publish, "Using a header"): actions split by ";", their
// parts by ",", each part "key=value" or, in the first three places, the
// action, the label and the URL; a value may be in double or single
// quotes, a quote in it escaped by a backslash.
type ntfyAction struct{ Action, Label, URL, Method, Clear string }

func parseNtfyActions(t *testing.T, h string) []ntfyAction {
	t.Helper()
	var out []ntfyAction
	var parts []string
	var cur strings.Builder
	var quote rune
	var prev rune
	flush := func() { parts = append(parts, strings.TrimSpace(cur.String())); cur.Reset() }
	end := func() {
		flush()
		a := ntfyAction{}
		for i, p := range parts {
			k, v, ok := strings.Cut(p, "=")
			if !ok || strings.ContainsAny(k, " \"'") || (i < 3 && !strings.Contains("action label url method clear", k)) {
				k, v = []string{"action", "label", "url"}[min(i, 2)], p
			}
			switch k {
			case "action":
				a.Action = v
			case "label":
				a.Label = v
			case "url":
				a.URL = v
			case "method":
				a.Method = v
			case "clear":
				a.Clear = v
			default:
				t.Errorf("unknown key %q in %q", k, h)
			}
		}
		out = append(out, a)
		parts = nil
	}
	for _, r := range h {
		switch {
		case quote != 0 && r == quote && prev != '\\':
			quote = 0
		case quote != 0:
			if r == quote { // escaped: drop the backslash
				s := cur.String()
				cur.Reset()
				cur.WriteString(s[:len(s)-1])
			}
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote = r
		case r == ',':
			flush()
		case r == ';':
			end()
		default:
			cur.WriteRune(r)
		}
		prev = r
	}
	if quote != 0 {
		t.Fatalf("unterminated quote in %q", h)
	}
	end()
	return out
}

// fakeCaps mints "URL/c/<button>".
type fakeCaps struct{}

func (fakeCaps) Capability(n *notify.Note, b string) string {
	return "https://ag.example/c/" + b + "." + n.Token
}
func (fakeCaps) URL() string { return "https://ag.example" }

// TestNtfyActions: the Actions header, exactly, and as ntfy reads it.
func TestNtfyActions(t *testing.T) {
	build := func(attn string, opts ...string) *notify.Note {
		e := state("s", "waiting", attn, "9.9")
		e.Options = opts
		return newCmd(io.Discard, io.Discard, func(string) string { return "" }).agents.Build(notify.KindWaiting, &e)
	}
	for _, tc := range []struct {
		name string
		n    *notify.Note
		want string
		read []ntfyAction
	}{
		{"a permission", build("permission"),
			`http, "Approve", https://ag.example/c/approve.9.9, method=POST, clear=true; http, "Deny", https://ag.example/c/deny.9.9, method=POST, clear=true; view, "Open", https://ag.example`,
			[]ntfyAction{{"http", "Approve", "https://ag.example/c/approve.9.9", "POST", "true"}, {"http", "Deny", "https://ag.example/c/deny.9.9", "POST", "true"}, {"view", "Open", "https://ag.example", "", ""}}},
		{"a plan", build("plan"),
			`http, "Approve plan", https://ag.example/c/plan-approve.9.9, method=POST, clear=true; http, "Keep planning", https://ag.example/c/plan-deny.9.9, method=POST, clear=true; view, "Open", https://ag.example`, nil},
		{"three options, a quote and a comma", build("question", "Red", `Green, "leaf"`, `C:\`),
			`http, "Red", https://ag.example/c/option-1.9.9, method=POST, clear=true; http, "Green, \"leaf\"", https://ag.example/c/option-2.9.9, method=POST, clear=true; http, "C:", https://ag.example/c/option-3.9.9, method=POST, clear=true`,
			[]ntfyAction{{"http", "Red", "https://ag.example/c/option-1.9.9", "POST", "true"}, {"http", `Green, "leaf"`, "https://ag.example/c/option-2.9.9", "POST", "true"}, {"http", "C:", "https://ag.example/c/option-3.9.9", "POST", "true"}}},
		{"more options than fit: two and the page", build("question", "a", "b", "c", "d"),
			`http, "a", https://ag.example/c/option-1.9.9, method=POST, clear=true; http, "b", https://ag.example/c/option-2.9.9, method=POST, clear=true; view, "More…", https://ag.example`, nil},
		{"a question with no options: no buttons", build("question"), ``, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ntfyActions(tc.n, fakeCaps{})
			if got != tc.want {
				t.Errorf("Actions:\n got %s\nwant %s", got, tc.want)
			}
			if tc.read != nil {
				if r := parseNtfyActions(t, got); len(r) != len(tc.read) || !equalActions(r, tc.read) {
					t.Errorf("ntfy reads %+v\nwant %+v", r, tc.read)
				}
			}
		})
	}
}

func equalActions(a, b []ntfyAction) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestNtfyButtonsPressThePage: the real ag-notify with --web and --ntfy;
// the phone's ntfy app is a plain HTTP client POSTing the button's URL:
// once it becomes the action event, again it is refused, forged too.
// With the page on loopback, unreachable from a phone, no buttons.
func TestNtfyButtonsPressThePage(t *testing.T) {
	var mu sync.Mutex
	var actions []string
	ntfy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		actions = append(actions, r.Header.Get("Actions")+"|"+r.Header.Get("Click"))
		mu.Unlock()
		io.WriteString(w, `{"id":"m1"}`)
	}))
	defer ntfy.Close()
	port := freePort(t)
	env := map[string]string{"AG_DIR": t.TempDir()}
	p := start(t, env, "--ntfy", ntfy.URL+"/t", "--max-age", "0", "-S", shortDir(t)+"/no-tmux",
		"--web", "127.0.0.1:"+port, "--web-url", "http://ag.test:"+port)
	p.send(state("s1", "waiting", "permission", "4.1"))
	p.next(event.Notify) // ntfy's (no page is open to tell)
	mu.Lock()
	got := actions[0]
	mu.Unlock()
	h, click, _ := strings.Cut(got, "|")
	acts := parseNtfyActions(t, h)
	if len(acts) != 3 || acts[0].Label != "Approve" || acts[1].Label != "Deny" || click != "http://ag.test:"+port {
		t.Fatalf("Actions %q, Click %q", h, click)
	}
	// The phone reaches ag.test; here that is 127.0.0.1.
	phone := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, "127.0.0.1:"+port)
	}}, Timeout: 5 * time.Second}
	post := func(u string) int {
		resp, err := phone.Post(u, "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := post(acts[0].URL); st != http.StatusAccepted {
		t.Fatalf("Approve: %d", st)
	}
	a := p.next(event.Action)
	if a.Action != "approve" || a.Token != "4.1" || a.Backend != "web" || a.Session != "s1" {
		t.Errorf("action = %+v", a)
	}
	if st := post(acts[0].URL); st != http.StatusGone {
		t.Errorf("Approve again: %d, want 410", st)
	}
	if st := post(strings.Replace(acts[1].URL, "/c/", "/c/x", 1)); st != http.StatusForbidden {
		t.Errorf("forged: %d, want 403", st)
	}
	p.stop()

	// On loopback: no buttons.
	actions = nil
	port = freePort(t)
	p = start(t, env, "--ntfy", ntfy.URL+"/t", "--max-age", "0", "-S", shortDir(t)+"/no-tmux", "--web", "127.0.0.1:"+port)
	p.send(state("s2", "waiting", "permission", "5.1"))
	p.next(event.Notify)
	p.stop()
	mu.Lock()
	defer mu.Unlock()
	if len(actions) != 1 || !strings.HasPrefix(actions[0], "|") {
		t.Errorf("loopback page: ntfy got %q, want no Actions", actions)
	}
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}
