//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// t/notifyd is not under ./cmd, so TestMain does not build it: the first
// test that needs it builds it into Bins.
var (
	notifydOnce sync.Once
	notifydErr  error
)

func notifydBin(t testing.TB) string {
	t.Helper()
	notifydOnce.Do(func() {
		out, err := exec.Command("go", "build", "-o", filepath.Join(Bins, "notifyd"),
			"github.com/agwatch/ag/t/notifyd").CombinedOutput()
		if err != nil {
			notifydErr = fmt.Errorf("building t/notifyd: %v\n%s", err, out)
		}
	})
	if notifydErr != nil {
		t.Fatal(notifydErr)
	}
	return filepath.Join(Bins, "notifyd")
}

// Notifyd is t/notifyd serving org.freedesktop.Notifications on the
// harness's private session bus (StartDBus first): it logs every Notify and
// CloseNotification call with its receive time, and presses buttons on
// request. The test also listens on the bus itself, for the signals.
type Notifyd struct {
	h    *Harness
	Log  string // one JSON line per call
	ctl  string // control socket
	conn *dbus.Conn

	mu      sync.Mutex
	signals []Signal
}

// Call is one method call notifyd received.
type Call struct {
	Call     string         `json:"call"` // Notify | CloseNotification
	ID       uint32         `json:"id"`
	TNS      int64          `json:"t_ns"` // when notifyd received it
	Replaces uint32         `json:"replaces"`
	Summary  string         `json:"summary"`
	Body     string         `json:"body"`
	Actions  []string       `json:"actions"`
	Hints    map[string]any `json:"hints"`
	Live     bool           `json:"live"` // CloseNotification: it was still shown
}

// Time is when notifyd received the call.
func (c Call) Time() time.Time { return time.Unix(0, c.TNS) }

// Buttons are the action keys offered (the even entries of Actions).
func (c Call) Buttons() []string {
	var keys []string
	for i := 0; i+1 < len(c.Actions); i += 2 {
		keys = append(keys, c.Actions[i])
	}
	return keys
}

// Signal is one notification signal seen on the bus.
type Signal struct {
	Name string // ActionInvoked | NotificationClosed | NotificationReplied
	ID   uint32
	Arg  any // the action key, the close reason, the reply
	At   time.Time
}

// StartNotifyd starts the test notification server and waits until it
// owns its name.
func (h *Harness) StartNotifyd() *Notifyd {
	h.T.Helper()
	addr := h.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" {
		h.T.Fatal("StartNotifyd: no bus (call StartDBus first)")
	}
	n := &Notifyd{h: h, Log: filepath.Join(h.Root, "notifyd.ndjson"), ctl: filepath.Join(h.Root, "notifyd.sock")}
	ready := filepath.Join(h.Root, "notifyd.ready")
	h.Start(h.Command("notifyd", notifydBin(h.T), "-log", n.Log, "-ctl", n.ctl, "-ready", ready))
	h.Dump("notifyd calls", func() string { return tailFile(n.Log, 100) })
	h.Dump("bus signals", n.signalText)
	deadline := time.Now().Add(15 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			h.T.Fatal("notifyd did not own org.freedesktop.Notifications within 15s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		h.T.Fatalf("connecting to the session bus %s: %v", addr, err)
	}
	h.OnClose(func() { conn.Close() })
	if err := conn.AddMatchSignal(dbus.WithMatchObjectPath("/org/freedesktop/Notifications"),
		dbus.WithMatchInterface("org.freedesktop.Notifications")); err != nil {
		h.T.Fatal(err)
	}
	ch := make(chan *dbus.Signal, 64)
	conn.Signal(ch)
	n.conn = conn
	go func() {
		for s := range ch {
			if len(s.Body) < 2 {
				continue
			}
			id, _ := s.Body[0].(uint32)
			n.mu.Lock()
			n.signals = append(n.signals, Signal{Name: strings.TrimPrefix(s.Name, "org.freedesktop.Notifications."),
				ID: id, Arg: s.Body[1], At: time.Now()})
			n.mu.Unlock()
		}
	}()
	return n
}

// Calls is every call notifyd has logged so far.
func (n *Notifyd) Calls() []Call {
	n.h.T.Helper()
	f, err := os.Open(n.Log)
	if err != nil {
		return nil
	}
	defer f.Close()
	var calls []Call
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var c Call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			n.h.T.Errorf("notifyd log line %d: %v: %s", len(calls)+1, err, sc.Bytes())
			continue
		}
		calls = append(calls, c)
	}
	return calls
}

// WaitCall returns the first call from index from on that matches, with
// its index; the test fails after timeout.
func (n *Notifyd) WaitCall(from int, what string, timeout time.Duration, match func(Call) bool) (Call, int) {
	n.h.T.Helper()
	c, i, ok := n.FindCall(from, timeout, match)
	if !ok {
		n.h.T.Fatalf("notifyd: no call %s within %s (%d calls)", what, timeout, len(n.Calls()))
	}
	return c, i
}

// FindCall is WaitCall that reports a timeout as ok false.
func (n *Notifyd) FindCall(from int, timeout time.Duration, match func(Call) bool) (Call, int, bool) {
	n.h.T.Helper()
	deadline := time.Now().Add(timeout)
	for {
		calls := n.Calls()
		for i := from; i < len(calls); i++ {
			if match(calls[i]) {
				return calls[i], i, true
			}
		}
		if time.Now().After(deadline) {
			return Call{}, 0, false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Press invokes a notification's action on the bus, as a click would:
// notifyd emits ActionInvoked, then closes the notification (reason 2).
func (n *Notifyd) Press(id uint32, key string) {
	n.h.T.Helper()
	n.command("action", id, key)
}

// Reply sends text as the notification's inline reply, as typing it in
// the banner would: notifyd emits NotificationReplied, then closes it.
func (n *Notifyd) Reply(id uint32, text string) {
	n.h.T.Helper()
	n.command("reply", id, text)
}

func (n *Notifyd) command(verb string, id uint32, arg string) {
	n.h.T.Helper()
	c, err := net.Dial("unix", n.ctl)
	if err != nil {
		n.h.T.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "%s %d %s\n", verb, id, arg)
	ans, _ := bufio.NewReader(c).ReadString('\n')
	if ans = strings.TrimSpace(ans); ans != "ok" {
		n.h.T.Fatalf("notifyd: %s %d %s: %s", verb, id, arg, ans)
	}
}

// EmitAction puts an ActionInvoked signal for id on the bus from the
// test's own connection: a click the server reports twice, or a late one.
func (n *Notifyd) EmitAction(id uint32, key string) {
	n.h.T.Helper()
	if err := n.conn.Emit("/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked", id, key); err != nil {
		n.h.T.Fatal(err)
	}
}

// Signals is every notification signal seen on the bus so far.
func (n *Notifyd) Signals() []Signal {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.signals)
}

// WaitClosed waits for NotificationClosed for id and returns its reason.
func (n *Notifyd) WaitClosed(id uint32, timeout time.Duration) uint32 {
	n.h.T.Helper()
	deadline := time.Now().Add(timeout)
	for {
		for _, s := range n.Signals() {
			if s.Name == "NotificationClosed" && s.ID == id {
				r, _ := s.Arg.(uint32)
				return r
			}
		}
		if time.Now().After(deadline) {
			n.h.T.Fatalf("notification %d was not closed within %s", id, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Live is the ids notified and not closed (by a NotificationClosed signal).
func (n *Notifyd) Live() []uint32 {
	n.h.T.Helper()
	live := map[uint32]bool{}
	for _, c := range n.Calls() {
		if c.Call == "Notify" {
			live[c.ID] = true
		}
	}
	for _, s := range n.Signals() {
		if s.Name == "NotificationClosed" {
			delete(live, s.ID)
		}
	}
	var ids []uint32
	for id := range live {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func (n *Notifyd) signalText() string {
	var b strings.Builder
	for _, s := range n.Signals() {
		fmt.Fprintf(&b, "%s %s id=%d %v\n", s.At.UTC().Format("15:04:05.000"), s.Name, s.ID, s.Arg)
	}
	if b.Len() == 0 {
		return "(none)"
	}
	return b.String()
}

// Keys is ag-keys reading what an upstream program writes, as in
// `ag-notify | ag-keys`: the test is the pipe, so it can also put action
// lines of its own into the same stream (Inject).
type Keys struct {
	Proc *Proc
	Out  *Watcher // the keys events

	mu sync.Mutex
	in io.WriteCloser
}

// StartKeys starts ag-keys with args, its stdin fed every line src reads
// (from the first) as whole lines. At teardown its input ends when src's
// does, as in a shell pipeline.
func (h *Harness) StartKeys(src *Watcher, args ...string) *Keys {
	h.T.Helper()
	p := h.Command("ag-keys", append([]string{Bin(h.T, "ag-keys")}, args...)...)
	in, err := p.Cmd.StdinPipe()
	if err != nil {
		h.T.Fatal(err)
	}
	out, err := p.Cmd.StdoutPipe()
	if err != nil {
		h.T.Fatal(err)
	}
	k := &Keys{Proc: p, in: in}
	h.Start(p)
	k.Out = Watch("ag-keys", out)
	h.Dump("ag-keys output", k.Out.Text)
	go k.relay(src)
	return k
}

// relay copies src's lines to ag-keys one whole line per write, so an
// injected line never lands inside one of them.
func (k *Keys) relay(src *Watcher) {
	defer func() {
		k.mu.Lock()
		k.in.Close()
		k.mu.Unlock()
	}()
	for i := 0; ; {
		src.mu.Lock()
		lines := slices.Clone(src.lines[i:])
		sig, eof := src.signal, src.eof
		src.mu.Unlock()
		i += len(lines)
		for _, l := range lines {
			if k.write(l) != nil {
				return
			}
		}
		if len(lines) == 0 && eof != nil {
			return
		}
		if len(lines) == 0 {
			<-sig
		}
	}
}

func (k *Keys) write(line string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, err := io.WriteString(k.in, line+"\n")
	return err
}

// Inject puts one line into ag-keys's input between the relayed ones.
func (k *Keys) Inject(t testing.TB, line []byte) {
	t.Helper()
	if err := k.write(strings.TrimRight(string(line), "\n")); err != nil {
		t.Fatalf("writing to ag-keys: %v", err)
	}
}

// paneCapture is the pane's text with the cursor's position, for "nothing
// was typed" checks.
func paneCapture(tm *Tmux, p *Pane) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, _ := tm.Client.Capture(ctx, p.ID, 0)
	cur, _ := tm.Client.Display(ctx, p.ID, "#{cursor_x},#{cursor_y}")
	return s + "\ncursor " + strings.TrimSpace(cur)
}
