package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/safetext"
)

// ntfyBackend publishes to an ntfy topic URL (ntfy.sh or self-hosted) with
// a plain POST: the body is the message, headers carry title, priority,
// tags, the click URL and, when the answer page is reachable from the
// phone, action buttons. ntfy cannot take a message back; retraction is a
// no-op.
type ntfyBackend struct {
	url, token, click string
	caps              capper // nil: no buttons
	client            *http.Client
}

// capper makes the single-use URL one button of a push notification
// POSTs to (the answer page's capability), "" when it cannot.
type capper interface {
	Capability(n *notify.Note, button string) string
	URL() string
}

func newNtfy(rawURL, token, click string, caps capper) (*ntfyBackend, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--ntfy %q: want an http(s) topic URL like https://ntfy.sh/TOPIC", rawURL)
	}
	if click == "" && caps != nil {
		click = caps.URL()
	}
	return &ntfyBackend{url: rawURL, token: token, click: click, caps: caps, client: &http.Client{}}, nil
}

// ntfyButtons is the answer page when the phone can reach it (its URL is
// not this machine's loopback): the only place ntfy's buttons can POST to.
func (c *cmd) ntfyButtons() capper {
	if c.web == nil || !c.web.Reachable() {
		return nil
	}
	return c.web
}

func (b *ntfyBackend) Name() string { return "ntfy" }

func (b *ntfyBackend) Deliver(ctx context.Context, n *notify.Note) (string, error) {
	msg := n.Subtitle
	if n.Body != "" {
		msg += "\n" + n.Body
	}
	msg = safetext.Text(msg, 4000)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.url, strings.NewReader(msg))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	req.Header.Set("Title", headerText(safetext.Line(n.Title, 200)))
	prio := "default"
	if n.Kind != notify.KindDone {
		prio = "high"
	}
	req.Header.Set("Priority", prio)
	req.Header.Set("Tags", "ag,"+headerText(strings.ReplaceAll(safetext.Line(n.Agent, 40), ",", ""))+","+n.Kind)
	if b.click != "" {
		req.Header.Set("Click", b.click)
	}
	if b.caps != nil {
		if a := ntfyActions(n, b.caps); a != "" {
			req.Header.Set("Actions", headerText(a))
		}
	}
	if b.token != "" {
		req.Header.Set("Authorization", "Bearer "+b.token)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("%s: %s", resp.Status, notify.Line(string(body), 200))
	}
	var m struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil || m.ID == "" {
		m.ID = "sent" // a compatible server that does not answer with ntfy's JSON
	}
	return m.ID, nil
}

func (b *ntfyBackend) Retract(context.Context, *notify.Note) (string, error) { return "", nil }

func (b *ntfyBackend) Close() { b.client.CloseIdleConnections() }

// headerText makes s a safe header value: ntfy reads RFC 2047 encoded
// words, which carry any UTF-8 through HTTP's ASCII headers.
func headerText(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] < 0x20 {
			return mime.BEncoding.Encode("UTF-8", s)
		}
	}
	return s
}

// ntfyMax is how many actions ntfy takes on one notification.
const ntfyMax = 3

// ntfyActions is the Actions header in ntfy's simple format: an http
// action per button, each POSTing its capability (single use, expiring
// with the wait), and a view action opening the page where buttons are
// left out (more options than fit) or there is room.
//
//	http, "Approve", https://…/c/CAP, method=POST, clear=true; http, "Deny", …; view, "Open", https://…
func ntfyActions(n *notify.Note, caps capper) string {
	bs := n.Buttons
	if len(bs) > ntfyMax {
		bs = bs[:ntfyMax-1] // and a view action for the rest
	}
	var acts []string
	for i, btn := range bs {
		u := caps.Capability(n, btn.ID(i))
		if u == "" {
			return "" // the page does not show this wait: no buttons at all
		}
		acts = append(acts, "http, "+ntfyQuote(btn.Label)+", "+u+", method=POST, clear=true")
	}
	if len(acts) > 0 && len(acts) < ntfyMax {
		label := "Open"
		if len(bs) < len(n.Buttons) {
			label = "More…"
		}
		acts = append(acts, "view, "+ntfyQuote(label)+", "+caps.URL())
	}
	return strings.Join(acts, "; ")
}

// ntfyQuote quotes a label for the simple format: in double quotes, a
// quote in it escaped with a backslash; a backslash at its end would
// escape the closing quote, so it goes.
func ntfyQuote(s string) string {
	s = strings.TrimRight(safetext.Line(s, notify.ButtonChars), "\\")
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
