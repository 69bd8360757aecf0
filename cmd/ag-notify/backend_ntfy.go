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
)

// ntfyBackend publishes to an ntfy topic URL (ntfy.sh or self-hosted) with
// a plain POST: the body is the message, headers carry title, priority,
// tags and the click URL. ntfy cannot take a message back; retraction is a
// no-op.
type ntfyBackend struct {
	url, token, click string
	client            *http.Client
}

func newNtfy(rawURL, token, click string) (*ntfyBackend, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--ntfy %q: want an http(s) topic URL like https://ntfy.sh/TOPIC", rawURL)
	}
	return &ntfyBackend{url: rawURL, token: token, click: click, client: &http.Client{}}, nil
}

func (b *ntfyBackend) Name() string { return "ntfy" }

func (b *ntfyBackend) Deliver(ctx context.Context, n *notify.Note) (string, error) {
	msg := n.Subtitle
	if n.Body != "" {
		msg += "\n" + n.Body
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.url, strings.NewReader(msg))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	req.Header.Set("Title", headerText(n.Title))
	prio := "default"
	if n.Kind != notify.KindDone {
		prio = "high"
	}
	req.Header.Set("Priority", prio)
	req.Header.Set("Tags", "ag,"+headerText(n.Agent)+","+n.Kind)
	if b.click != "" {
		req.Header.Set("Click", b.click)
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
