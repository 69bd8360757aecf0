package main

import (
	"context"
	"fmt"
	"time"

	"github.com/agwatch/ag/cmd/ag-notify/web"
	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/paths"
)

// The answer page is a backend of ag-notify's rather than a program of
// its own: it needs what ag-notify already has — every state in, the key
// maps that decide the buttons, --sign for the presses, the one stdout
// actions leave by, and ntfy's notifications, whose buttons are the page's
// capabilities.
type webOptions struct {
	Web       string        `long:"web" value-name:"ADDR" description:"serve the answer page on ADDR (127.0.0.1:7780)" man:"a page for the phone and the browser: every session, live, with its buttons (see WEB)"`
	WebURL    string        `long:"web-url" value-name:"URL" more:"true" description:"the page's address as the browser sees it" man:"https://box.tailnet.ts.net behind tailscale serve; the pairing link, the origin checked, and ntfy's buttons use it"`
	WebCert   string        `long:"web-cert" value-name:"FILE" more:"true" description:"serve the page over TLS with this certificate"`
	WebKey    string        `long:"web-key" value-name:"FILE" more:"true" description:"the certificate's private key"`
	WebProxy  bool          `long:"web-proxy" more:"true" description:"a TLS proxy serves the page: listen off loopback without TLS"`
	WebKeys   string        `long:"web-keys" value-name:"FILE" more:"true" description:"follow ag-keys' keys events in FILE (ag-keys >> FILE)"`
	WebExpire time.Duration `long:"web-expire" value-name:"DUR" default:"720h" more:"true" description:"a paired browser's cookie lasts this long"`
	WebRevoke string        `long:"web-revoke" value-name:"ID" more:"true" description:"cut off a paired browser (all: every one) and exit"`
}

// webBackend shows the policy's notifications on the open pages, through
// the browser's Notification API.
type webBackend struct{ s *web.Server }

func (b *webBackend) Name() string { return "web" }

func (b *webBackend) Deliver(_ context.Context, n *notify.Note) (string, error) {
	if b.s.Notify(n) {
		return "page", nil
	}
	return "", nil
}

func (b *webBackend) Retract(_ context.Context, n *notify.Note) (string, error) {
	if b.s.Retract(n) {
		return "page", nil
	}
	return "", nil
}

func (b *webBackend) Close() {}

// webDir is where the page keeps its key and paired devices.
func (c *cmd) webDir() string { return paths.StateDir(paths.Env(c.env)) }

// revoke is --web-revoke: edit the devices file a running ag-notify follows.
func (c *cmd) revoke() int {
	n, err := web.Revoke(c.webDir(), c.opts.WebRevoke)
	switch {
	case err != nil:
		c.prog.Errorf("--web-revoke: %v", err)
		return cli.ExitError
	case n == 0:
		var ids []string
		for _, d := range web.Devices(c.webDir()) {
			ids = append(ids, d.ID+" ("+d.Name+")")
		}
		c.prog.Errorf("--web-revoke: no paired browser %q (paired: %v)", c.opts.WebRevoke, ids)
		return cli.ExitNoMatch
	}
	fmt.Fprintf(c.prog.Stderr, "ag-notify: revoked %d paired browser(s)\n", n)
	return cli.ExitOK
}

// startWeb starts the page and prints its one-time pairing link, with
// its QR code, on stderr.
func (c *cmd) startWeb() error {
	s, err := web.New(web.Config{
		Addr: c.opts.Web, URL: c.opts.WebURL, Cert: c.opts.WebCert, Key: c.opts.WebKey, Proxy: c.opts.WebProxy,
		Dir: c.webDir(), Expire: c.opts.WebExpire, Agents: c.agents, Self: c.host, Now: c.now,
		Log: func(format string, a ...any) { c.prog.Errorf(format, a...) },
		Press: func(n *notify.Note, action, text string) bool {
			select {
			case c.presses <- press{note: n, action: action, text: text, backend: "web"}:
				return true
			default:
				return false
			}
		},
	})
	if err != nil {
		return err
	}
	if c.opts.WebKeys != "" {
		if err := s.FollowKeys(c.opts.WebKeys); err != nil {
			s.Close()
			return err
		}
	}
	s.Serve()
	c.web = s
	link := s.PairURL(0)
	qr, err := web.QR(link)
	if err != nil {
		qr = ""
	}
	fmt.Fprintf(c.prog.Stderr, "ag-notify: the answer page is at %s\nag-notify: pair a browser (once) with %s\n%s\n", s.URL(), link, qr)
	return nil
}
