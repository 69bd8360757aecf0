package web

import (
	"embed"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/safetext"
	qrcode "github.com/skip2/go-qrcode"
)

//go:embed assets
var assets embed.FS

const (
	cookieName = "ag_web"
	csrfHeader = "X-AG-CSRF"
	maxBody    = 16 << 10
	// Rate limits: presses and other acts per device; pairing attempts
	// and capability presses for the whole server.
	actBurst, actPerMin   = 10, 30
	pairBurst, pairPerMin = 5, 5
	capBurst, capPerMin   = 10, 20
	heartbeat             = 25 * time.Second
	pairCodeTTL           = 10 * time.Minute
)

// The page may load only what it was served with.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	static := func(name, ctype string) http.HandlerFunc {
		b, err := assets.ReadFile("assets/" + name)
		if err != nil {
			panic(err) // embedded at build time
		}
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.Header().Set("Cache-Control", "no-cache")
			w.Write(b)
		}
	}
	mux.Handle("GET /{$}", static("index.html", "text/html; charset=utf-8"))
	mux.Handle("GET /pair", static("pair.html", "text/html; charset=utf-8"))
	mux.Handle("GET /app.js", static("app.js", "text/javascript; charset=utf-8"))
	mux.Handle("GET /pair.js", static("pair.js", "text/javascript; charset=utf-8"))
	mux.Handle("GET /app.css", static("app.css", "text/css; charset=utf-8"))
	mux.Handle("GET /manifest.webmanifest", static("manifest.webmanifest", "application/manifest+json"))
	mux.Handle("GET /icon.svg", static("icon.svg", "image/svg+xml"))
	mux.Handle("GET /icon-192.png", static("icon-192.png", "image/png"))
	mux.Handle("GET /icon-512.png", static("icon-512.png", "image/png"))
	mux.HandleFunc("POST /api/pair", s.pairHandler)
	mux.HandleFunc("GET /api/me", s.authed(false, s.meHandler))
	mux.HandleFunc("GET /api/events", s.authed(false, s.eventsHandler))
	mux.HandleFunc("POST /api/press", s.authed(true, s.pressHandler))
	mux.HandleFunc("POST /api/revoke", s.authed(true, s.revokeHandler))
	mux.HandleFunc("POST /api/pair-code", s.authed(true, s.pairCodeHandler))
	mux.HandleFunc("POST /c/{cap}", s.capHandler)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if s.secure {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		// A page of another name that resolves here (DNS rebinding) is not
		// this page.
		if !s.hosts[strings.ToLower(r.Host)] {
			http.Error(w, "unknown host "+r.Host, http.StatusMisdirectedRequest)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// reply writes v as JSON with status code.
func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func refuse(w http.ResponseWriter, code int, why string) {
	reply(w, code, map[string]string{"error": why})
}

// sameOrigin reports whether a request that acts comes from the page.
func (s *Server) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	return o != "" && s.origin[strings.ToLower(o)]
}

// authed wraps a handler for paired browsers only; acts (POSTs) must also
// come from the page's origin with the device's CSRF token, under the
// device's rate limit.
func (s *Server) authed(acts bool, h func(http.ResponseWriter, *http.Request, Device)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie(cookieName)
		var secret string
		if c != nil {
			secret = c.Value
		}
		d, ok := s.auth.device(secret)
		switch {
		case !ok:
			refuse(w, http.StatusUnauthorized, "this browser is not paired (open the pairing link ag-notify printed)")
		case acts && !s.sameOrigin(r):
			refuse(w, http.StatusForbidden, "wrong origin")
		case acts && !s.auth.csrfOK(d.ID, r.Header.Get(csrfHeader)):
			refuse(w, http.StatusForbidden, "missing or wrong CSRF token")
		case acts && !s.auth.allow("device:"+d.ID, actBurst, actPerMin):
			refuse(w, http.StatusTooManyRequests, "too many requests: wait a moment")
		default:
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
			h(w, r, d)
		}
	}
}

func decode(r *http.Request, v any) bool {
	b, err := io.ReadAll(r.Body)
	return err == nil && json.Unmarshal(b, v) == nil
}

func (s *Server) pairHandler(w http.ResponseWriter, r *http.Request) {
	var req struct{ Code, Name string }
	switch {
	case !s.sameOrigin(r):
		refuse(w, http.StatusForbidden, "wrong origin")
		return
	case !s.auth.allow("pair", pairBurst, pairPerMin):
		refuse(w, http.StatusTooManyRequests, "too many pairing attempts: wait a minute")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if !decode(r, &req) || req.Code == "" {
		refuse(w, http.StatusBadRequest, "no pairing code")
		return
	}
	d, secret, err := s.auth.pair(req.Code, safetext.Line(req.Name, 60))
	if err != nil {
		refuse(w, http.StatusForbidden, err.Error())
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: secret, Path: "/", HttpOnly: true,
		Secure: s.secure, SameSite: http.SameSiteStrictMode, Expires: d.Expires, MaxAge: int(time.Until(d.Expires).Seconds())})
	s.cfg.Log("web: paired %s (%s)", d.ID, d.Name)
	reply(w, http.StatusOK, map[string]string{"device": d.ID})
}

func (s *Server) meHandler(w http.ResponseWriter, r *http.Request, d Device) {
	reply(w, http.StatusOK, map[string]any{"device": d.ID, "name": d.Name, "csrf": s.auth.csrf(d.ID),
		"expires": d.Expires, "devices": s.auth.list()})
}

func (s *Server) revokeHandler(w http.ResponseWriter, r *http.Request, d Device) {
	var req struct{ ID string }
	if !decode(r, &req) || req.ID == "" || req.ID == "all" {
		refuse(w, http.StatusBadRequest, "name one device")
		return
	}
	n, err := s.auth.revoke(req.ID)
	if err != nil {
		refuse(w, http.StatusInternalServerError, err.Error())
		return
	}
	if n == 0 {
		refuse(w, http.StatusNotFound, "no such device")
		return
	}
	s.cfg.Log("web: %s revoked %s", d.ID, req.ID)
	s.revoked()
	reply(w, http.StatusOK, map[string]int{"revoked": n})
}

func (s *Server) pairCodeHandler(w http.ResponseWriter, r *http.Request, d Device) {
	u := s.PairURL(pairCodeTTL)
	png, err := qrcode.Encode(u, qrcode.Medium, 320)
	if err != nil {
		refuse(w, http.StatusInternalServerError, err.Error())
		return
	}
	reply(w, http.StatusOK, map[string]string{"url": u, "qr": "data:image/png;base64," + base64.StdEncoding.EncodeToString(png),
		"expires": s.cfg.Now().Add(pairCodeTTL).UTC().Format(time.RFC3339)})
}

// press is one button pressed on the page (or a reply typed).
type pressReq struct {
	ID     string `json:"id"`     // the session
	Token  string `json:"token"`  // the state's token the page showed
	Button string `json:"button"` // a ViewButton's ID, or "reply"
	Text   string `json:"text"`
}

func (s *Server) pressHandler(w http.ResponseWriter, r *http.Request, d Device) {
	var req pressReq
	if !decode(r, &req) {
		refuse(w, http.StatusBadRequest, "not a press")
		return
	}
	code, why := s.press(req)
	if code != http.StatusAccepted {
		refuse(w, code, why)
		return
	}
	reply(w, code, map[string]string{"status": "sent", "pressed": why})
}

// press hands one press to ag-notify; the status and, if accepted, what
// was pressed.
func (s *Server) press(req pressReq) (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[req.ID]
	switch {
	case ss == nil:
		return http.StatusNotFound, "no such session (it ended)"
	case ss.stale != "":
		return http.StatusConflict, "stale: " + ss.stale
	case req.Token != ss.st.Token:
		return http.StatusConflict, "stale: the session moved on since the page showed it"
	case ss.pressed != "":
		return http.StatusConflict, "already answered here: " + ss.pressed
	}
	n := ss.note
	var action, text, label string
	if req.Button == replyID {
		text = notify.SanitizeReply(req.Text)
		if n.Reply == "" || text == "" {
			return http.StatusBadRequest, "no reply offered here, or an empty one"
		}
		action, label = n.Reply, "Reply"
	} else {
		b, ok := n.Find(req.Button)
		if !ok {
			return http.StatusBadRequest, "no such button on this session now"
		}
		action, text, label = b.Key, b.Text, b.Label
	}
	if !s.cfg.Press(n, action, text) {
		return http.StatusServiceUnavailable, "ag-notify is busy: try again"
	}
	ss.pressed = label
	s.build(req.ID, ss)
	s.broadcast("put", ss.view)
	return http.StatusAccepted, label
}

func (s *Server) capHandler(w http.ResponseWriter, r *http.Request) {
	if !s.auth.allow("caps", capBurst, capPerMin) {
		http.Error(w, "too many requests", http.StatusTooManyRequests)
		return
	}
	cp, err := s.caps.redeem(r.PathValue("cap"))
	code := http.StatusForbidden
	switch err {
	case nil:
		var why string
		if code, why = s.press(pressReq{ID: cp.Session, Token: cp.Token, Button: cp.Button}); code == http.StatusAccepted {
			w.WriteHeader(code)
			io.WriteString(w, why+": sent\n")
			return
		}
		err = stringError(why)
		if code == http.StatusConflict || code == http.StatusNotFound {
			code = http.StatusGone // the wait it was for is over
		}
	case errExpired, errUsed:
		code = http.StatusGone
	}
	http.Error(w, err.Error(), code)
}

type stringError string

func (e stringError) Error() string { return string(e) }

// Capability is the URL of one button of a push notification for n, or
// "" when the page cannot take it (the session is not one it shows
// waiting under n's token).
func (s *Server) Capability(n *notify.Note, button string) string {
	id := s.id(n.Host, n.Agent, n.Session)
	s.mu.Lock()
	ss := s.sessions[id]
	ok := ss != nil && ss.st.Token == n.Token && ss.stale == ""
	s.mu.Unlock()
	if !ok {
		return ""
	}
	return s.url.String() + "/c/" + s.caps.mint(id, n.Token, button)
}

// client is one open page's event stream.
type client struct {
	device string
	ch     chan []byte
	done   chan struct{}
	once   sync.Once
}

func (c *client) end() { c.once.Do(func() { close(c.done) }) }

// send queues one server-sent event; a page too slow to take it is cut
// off and, reconnecting, starts again from a snapshot.
func (c *client) send(kind string, v any) bool {
	b, _ := json.Marshal(v)
	msg := make([]byte, 0, len(b)+len(kind)+16)
	msg = append(append(append(msg, "event: "...), kind...), "\ndata: "...)
	msg = append(append(msg, b...), "\n\n"...)
	select {
	case c.ch <- msg:
		return true
	default:
		c.end()
		return false
	}
}

// broadcast sends to every page (with s.mu held); how many took it.
func (s *Server) broadcast(kind string, v any) int {
	n := 0
	for c := range s.clients {
		if c.send(kind, v) {
			n++
		}
	}
	return n
}

func (s *Server) eventsHandler(w http.ResponseWriter, r *http.Request, d Device) {
	fl, ok := w.(http.Flusher)
	if !ok {
		refuse(w, http.StatusInternalServerError, "no streaming")
		return
	}
	c := &client{device: d.ID, ch: make(chan []byte, 256), done: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	c.send("snapshot", map[string]any{"sessions": s.snapshot(), "now": s.cfg.Now().UTC().Format(time.RFC3339Nano)})
	s.clients[c] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.clients, c)
		s.mu.Unlock()
	}()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // proxies: do not hold the stream back
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-c.done:
			// Whatever was queued (a "revoked") goes out first.
			for {
				select {
				case m := <-c.ch:
					w.Write(m)
				default:
					fl.Flush()
					return
				}
			}
		case m := <-c.ch:
			if _, err := w.Write(m); err != nil {
				return
			}
			for more := true; more; {
				select {
				case m := <-c.ch:
					w.Write(m)
				default:
					more = false
				}
			}
			fl.Flush()
		case <-tick.C:
			io.WriteString(w, ": ping\n\n")
			fl.Flush()
		}
	}
}
