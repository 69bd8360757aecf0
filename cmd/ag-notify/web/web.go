// Package web is ag-notify's answer page: one page, for a phone or a
// desktop browser, that lists every session across hosts (waiting ones
// first) live over server-sent events, with the buttons the agent's key
// map supports for each wait. A press becomes a press of ag-notify's, like
// a desktop button's: an action event quoting the state's token, signed
// with --sign, for ag-keys to type or refuse; the keys events ag-keys
// writes come back (a file it follows, or its own input) and the page
// shows what was typed or why not.
//
// Only the user gets in: a browser pairs once with a one-time URL and
// holds a cookie (HttpOnly, SameSite=Strict, expiring); every request that
// acts must carry it, come from the page's own origin with its CSRF token,
// and stay under a rate limit. Devices are kept in a file; a lost phone is
// cut off by revoking it (--web-revoke, or from the page). ntfy's buttons
// POST single-use signed capabilities that expire with the wait.
package web

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/safetext"
	"github.com/fsnotify/fsnotify"
)

// Config is what the server needs from ag-notify.
type Config struct {
	Addr     string // where to listen
	URL      string // the page's address as the browser sees it; "" = from Addr
	Cert     string // TLS certificate and key files, both or neither
	Key      string
	Proxy    bool   // a TLS proxy sits in front: a plain listener off loopback is allowed
	Dir      string // where web.key and web-devices.json live
	Expire   time.Duration
	Agents   notify.Agents
	Self     hostname.Self                                  // this machine: its sessions show no host
	Press    func(n *notify.Note, action, text string) bool // hands a press to ag-notify's loop
	Now      func() time.Time
	Log      func(format string, a ...any) // one line on stderr, prefixed
	Listener net.Listener                  // tests: serve here instead of Addr
}

// Server is one run's page.
type Server struct {
	cfg    Config
	url    *url.URL
	hosts  map[string]bool // Host headers accepted (DNS rebinding)
	origin map[string]bool // Origin headers accepted
	secure bool            // the browser sees https: cookies are Secure
	http   *http.Server
	ln     net.Listener
	auth   *auth
	caps   *caps

	mu       sync.Mutex
	sessions map[string]*session // by id
	clients  map[*client]bool
	notes    map[string]bool // sessions with a browser notification up
	closed   bool
	// followers watch --web-keys files; closed at Close.
	followers []*fsnotify.Watcher
	wg        sync.WaitGroup
}

// New checks the configuration and listens; Serve starts answering.
func New(cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Expire <= 0 {
		cfg.Expire = 30 * 24 * time.Hour
	}
	if (cfg.Cert == "") != (cfg.Key == "") {
		return nil, errors.New("--web-cert and --web-key go together")
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("--web %q: want HOST:PORT, as 127.0.0.1:7780", cfg.Addr)
	}
	loop := loopback(host)
	tlsOn := cfg.Cert != ""
	if !loop && !tlsOn && !cfg.Proxy {
		return nil, fmt.Errorf("--web %s is not loopback: serve TLS (--web-cert, --web-key) or say a TLS proxy sits in front (--web-proxy)", cfg.Addr)
	}
	s := &Server{cfg: cfg, hosts: map[string]bool{}, origin: map[string]bool{},
		sessions: map[string]*session{}, clients: map[*client]bool{}, notes: map[string]bool{}}
	scheme := "http"
	if tlsOn {
		scheme = "https"
	}
	raw := cfg.URL
	if raw == "" {
		raw = scheme + "://" + cfg.Addr
	}
	if s.url, err = url.Parse(raw); err != nil || (s.url.Scheme != "http" && s.url.Scheme != "https") || s.url.Host == "" {
		return nil, fmt.Errorf("--web-url %q: want http(s)://HOST[:PORT]", raw)
	}
	if cfg.Proxy && s.url.Scheme != "https" {
		return nil, errors.New("--web-proxy: give --web-url https://... (the address the proxy serves)")
	}
	s.url.Path, s.url.RawQuery, s.url.Fragment = "", "", ""
	s.secure = s.url.Scheme == "https"
	s.allow(s.url.Scheme, s.url.Host)
	if loop {
		// The page as the machine itself (or an ssh tunnel) reaches it.
		for _, h := range []string{"127.0.0.1", "localhost", "[::1]"} {
			s.allow(scheme, h+":"+port)
		}
	}
	if s.auth, err = newAuth(cfg.Dir, cfg.Expire, cfg.Now); err != nil {
		return nil, err
	}
	s.caps = newCaps(s.auth.key, cfg.Now)
	ln := cfg.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", cfg.Addr); err != nil {
			return nil, fmt.Errorf("--web: %w", err)
		}
	}
	if tlsOn {
		cert, err := tls.LoadX509KeyPair(cfg.Cert, cfg.Key)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("--web-cert/--web-key: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	s.ln = ln
	// http's own log would print a line on stderr per client that hangs
	// up mid-handshake.
	s.http = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	return s, nil
}

func (s *Server) allow(scheme, host string) {
	s.hosts[strings.ToLower(host)] = true
	s.origin[strings.ToLower(scheme+"://"+host)] = true
}

// loopback reports whether host names this machine only.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL is the page's address as the browser sees it.
func (s *Server) URL() string { return s.url.String() }

// Reachable reports whether a phone elsewhere can reach the page: its
// address is not this machine's loopback. ntfy's buttons need that.
func (s *Server) Reachable() bool { return !loopback(s.url.Hostname()) }

// Serve answers until Close.
func (s *Server) Serve() {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.http.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.cfg.Log("web: %v", err)
		}
	}()
	s.auth.watch(s.revoked, &s.wg)
}

// Close ends every stream and stops serving.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	for c := range s.clients {
		c.end()
	}
	for _, w := range s.followers {
		w.Close()
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s.http.Shutdown(ctx)
	s.auth.close()
	s.wg.Wait()
}

// PairURL makes a one-time pairing URL (valid for ttl, 0: until used).
func (s *Server) PairURL(ttl time.Duration) string {
	return s.url.String() + "/pair#" + s.auth.newCode(ttl)
}

// Observe takes every event ag-notify reads: states, keys events,
// host.down. It never blocks.
func (s *Server) Observe(e *event.Event) {
	switch e.Kind {
	case event.State:
		s.state(e)
	case event.Keys:
		s.keys(e)
	case event.HostDown:
		s.hostDown(e.Host)
	}
}

// Notify shows a browser notification on the open pages (the page asks
// the browser's Notification API); Retract takes it back. They report
// whether any page was there to tell.
func (s *Server) Notify(n *notify.Note) bool {
	body := n.Subtitle
	if n.Body != "" {
		body += "\n" + n.Body
	}
	id := s.id(n.Host, n.Agent, n.Session)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes[id] = true
	return s.broadcast("notify", map[string]string{"id": id, "title": safetext.Line(n.Title, 200), "body": safetext.Text(body, 600)}) > 0
}

func (s *Server) Retract(n *notify.Note) bool {
	id := s.id(n.Host, n.Agent, n.Session)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.notes[id] {
		return false
	}
	delete(s.notes, id)
	return s.broadcast("retract", map[string]string{"id": id}) > 0
}

// revoked ends the streams of devices no longer in the file.
func (s *Server) revoked() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.clients {
		if !s.auth.known(c.device) {
			c.send("revoked", map[string]string{})
			c.end()
			delete(s.clients, c)
		}
	}
}
