package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/safetext"
	"github.com/agwatch/ag/providers/provider"
	"github.com/godbus/dbus/v5"
)

// The freedesktop notification service.
const (
	fdoName  = "org.freedesktop.Notifications"
	fdoPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	fdoIface = "org.freedesktop.Notifications"

	replyKey = "inline-reply" // KDE's inline reply action and capability

	// dbusButtons is how many buttons a notification offers: GNOME
	// shows three, KDE and dunst more, but none all of a long list.
	dbusButtons = 3
)

// dbusBackend talks to the desktop's notification server. It keeps one
// notification per session (replaces_id), remembers what each id offered,
// and turns ActionInvoked / NotificationReplied into presses.
type dbusBackend struct {
	env     func(string) string
	presses chan<- press

	mu       sync.Mutex
	conn     *dbus.Conn
	obj      dbus.BusObject
	caps     []string
	owner    string // the server's unique bus name: the only sender of presses we believe
	byID     map[uint32]*notify.Note
	bySess   map[string]uint32
	closed   bool
	signals  chan *dbus.Signal
	listenWG sync.WaitGroup
}

// newDBus connects now. If it cannot, the error says why and the returned
// backend (non-nil for a soft error) connects again on the next delivery:
// a login pipeline may start before the desktop session's bus.
func newDBus(ctx context.Context, env func(string) string, presses chan<- press) (backend, error) {
	b := &dbusBackend{env: env, presses: presses, byID: map[uint32]*notify.Note{}, bySess: map[string]uint32{}}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.connect(ctx); err != nil {
		return b, &softError{err}
	}
	return b, nil
}

func (b *dbusBackend) Name() string { return "dbus" }

// busAddress is $DBUS_SESSION_BUS_ADDRESS, else systemd's per-user bus. It
// never autolaunches a bus (godbus would run dbus-launch).
func (b *dbusBackend) busAddress() (string, error) {
	if a := b.env("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return a, nil
	}
	if d := b.env("XDG_RUNTIME_DIR"); filepath.IsAbs(d) { // relative: invalid (XDG spec)
		p := filepath.Join(d, "bus")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + p, nil
		}
	}
	return "", errors.New("no session bus ($DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus)")
}

// connect (with b.mu held) dials the bus, asks the server what it can do
// and starts listening for its signals.
func (b *dbusBackend) connect(ctx context.Context) error {
	if b.conn != nil {
		if b.conn.Connected() {
			return nil
		}
		// godbus closed the connection, and with it b.signals, when the
		// bus went away: closing the channel again would panic.
		b.conn.Close()
		b.conn = nil
		clear(b.byID)
		clear(b.bySess)
	}
	addr, err := b.busAddress()
	if err != nil {
		return err
	}
	conn, err := dbus.Connect(addr, dbus.WithContext(context.Background()))
	if err != nil {
		return fmt.Errorf("session bus %s: %w", addr, err)
	}
	obj := conn.Object(fdoName, fdoPath)
	var caps []string
	if err := obj.CallWithContext(ctx, fdoIface+".GetCapabilities", 0).Store(&caps); err != nil {
		conn.Close()
		return fmt.Errorf("no notification server: %w", err)
	}
	// Only the notification server may press our buttons: any client on
	// the bus can emit a signal named ActionInvoked.
	var owner string
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.GetNameOwner", 0, fdoName).Store(&owner); err != nil {
		conn.Close()
		return fmt.Errorf("no notification server: %w", err)
	}
	if err := conn.AddMatchSignalContext(ctx, dbus.WithMatchSender(fdoName), dbus.WithMatchObjectPath(fdoPath), dbus.WithMatchInterface(fdoIface)); err != nil {
		conn.Close()
		return fmt.Errorf("listening for notification signals: %w", err)
	}
	b.conn, b.obj, b.caps, b.owner = conn, obj, caps, owner
	b.signals = make(chan *dbus.Signal, 32)
	conn.Signal(b.signals)
	b.listenWG.Add(1)
	go b.listen(b.signals)
	return nil
}

func (b *dbusBackend) Deliver(ctx context.Context, n *notify.Note) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.connect(ctx); err != nil {
		return "", err
	}
	has := func(c string) bool { return slices.Contains(b.caps, c) }
	body := n.Subtitle
	if n.Body != "" {
		body += "\n" + n.Body
	}
	summary := n.Title
	if has("body-markup") {
		// Servers that read markup in the body read it in the summary
		// too (GNOME Shell, dunst, mako): both are escaped.
		body, summary = markupEscape(body), markupEscape(summary)
	}
	var actions []string
	hints := map[string]dbus.Variant{
		"category":      dbus.MakeVariant("im.received"),
		"desktop-entry": dbus.MakeVariant("ag"),
	}
	if n.Urgent {
		hints["urgency"] = dbus.MakeVariant(byte(2)) // stays until dealt with
	} else {
		hints["urgency"] = dbus.MakeVariant(byte(1))
	}
	if has("actions") {
		if n.Pane != "" || n.Where == event.WhereBackground {
			// A background session opens in a window attached to it.
			actions = append(actions, "default", "Open")
		}
		for i, btn := range n.Buttons {
			if i == dbusButtons {
				break // servers show three or four; the rest are left out
			}
			actions = append(actions, btn.ID(i), btn.Label)
		}
		if n.Reply != "" && has(replyKey) {
			actions = append(actions, replyKey, "Reply")
			hints["x-kde-reply-placeholder-text"] = dbus.MakeVariant("Reply to " + n.Name)
		}
	}
	old := b.bySess[n.Key]
	var id uint32
	err := b.obj.CallWithContext(ctx, fdoIface+".Notify", 0,
		"ag", old, "", summary, body, actions, hints, int32(-1)).Store(&id)
	if err != nil {
		return "", err
	}
	if old != 0 && old != id {
		delete(b.byID, old)
	}
	b.byID[id] = n
	b.bySess[n.Key] = id
	return strconv.FormatUint(uint64(id), 10), nil
}

func (b *dbusBackend) Retract(ctx context.Context, n *notify.Note) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id, ok := b.bySess[n.Key]
	if !ok || b.conn == nil {
		return "", nil // closed by the user or the server already
	}
	delete(b.bySess, n.Key)
	delete(b.byID, id)
	if err := b.obj.CallWithContext(ctx, fdoIface+".CloseNotification", 0, id).Err; err != nil {
		var derr dbus.Error
		if errors.As(err, &derr) {
			// The server answered: the user dismissed it a moment ago.
			return "", nil
		}
		return "", err
	}
	return strconv.FormatUint(uint64(id), 10), nil
}

// serverName is the unique bus name of the notification server we talk to.
func (b *dbusBackend) serverName() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.owner
}

// listen turns the server's signals into presses. Closed notifications
// are forgotten so a later retraction does not close an id the server may
// have given to someone else.
func (b *dbusBackend) listen(ch <-chan *dbus.Signal) {
	defer b.listenWG.Done()
	for sig := range ch {
		if sig.Path != fdoPath || len(sig.Body) < 2 || sig.Sender != b.serverName() {
			continue
		}
		id, _ := sig.Body[0].(uint32)
		switch sig.Name {
		case fdoIface + ".ActionInvoked":
			key, _ := sig.Body[1].(string)
			b.press(id, key, "")
		case fdoIface + ".NotificationReplied":
			text, _ := sig.Body[1].(string)
			b.press(id, replyKey, text)
		case fdoIface + ".NotificationClosed":
			b.mu.Lock()
			if n := b.byID[id]; n != nil {
				delete(b.byID, id)
				if b.bySess[n.Key] == id {
					delete(b.bySess, n.Key)
				}
			}
			b.mu.Unlock()
		}
	}
}

func (b *dbusBackend) press(id uint32, key, text string) {
	b.mu.Lock()
	n := b.byID[id]
	closed := b.closed
	if n != nil {
		// Servers close a notification once it is acted on; forget it now,
		// before the state change the press causes asks to retract it.
		delete(b.byID, id)
		if b.bySess[n.Key] == id {
			delete(b.bySess, n.Key)
		}
	}
	b.mu.Unlock()
	if n == nil || closed {
		return // not ours, or already answered
	}
	p := press{note: n, backend: "dbus", text: text}
	switch {
	case key == "default":
		p.action = provider.ActFocus
	case key == replyKey && n.Reply != "":
		p.action = n.Reply
	default:
		if btn, ok := n.Find(key); ok {
			p.action, p.text = btn.Key, btn.Text
		}
	}
	if p.action == "" {
		return
	}
	select {
	case b.presses <- p:
	default: // the loop has stopped: nobody left to carry it out
	}
}

func (b *dbusBackend) Close() {
	b.mu.Lock()
	b.closed = true
	conn := b.conn
	b.conn = nil
	b.mu.Unlock()
	if conn != nil {
		// Closing the connection closes b.signals, once, whether or not
		// the bus went away first (godbus closes the channels of a
		// connection it lost), and listen ends.
		conn.Close()
		b.listenWG.Wait()
	}
}

// markupEscape keeps agent text from being read as the server's markup.
func markupEscape(s string) string { return safetext.Markup(s, 0) }
