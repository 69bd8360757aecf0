// notifyd is a notification server for tests: it owns
// org.freedesktop.Notifications on the session bus
// ($DBUS_SESSION_BUS_ADDRESS), records every Notify and CloseNotification
// call as one JSON line, and presses buttons on request.
//
// Synopsis:
//
//	notifyd -log FILE [-ctl SOCKET] [-caps LIST] [-ready FILE]
//	notifyd ctl SOCKET action ID|last KEY
//	notifyd ctl SOCKET reply ID|last TEXT...
//	notifyd ctl SOCKET close ID|last [REASON]
//
// The server answers Notify with ids from 1 up, honours replaces_id, and
// after an action or reply closes the notification (NotificationClosed
// reason 2) as desktop servers do. -caps sets what GetCapabilities answers
// (default "actions,body,inline-reply"). The control socket takes one
// command per connection, a line like the ctl arguments, and answers "ok"
// or "error: why". Each log line has "t_ns" (the receive time in Unix
// nanoseconds) so a test can measure latency against its own clock.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	name  = "org.freedesktop.Notifications"
	path  = dbus.ObjectPath("/org/freedesktop/Notifications")
	iface = "org.freedesktop.Notifications"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "ctl" {
		os.Exit(ctl(os.Args[2:]))
	}
	logPath := flag.String("log", "", "append one JSON line per call to FILE")
	ctlPath := flag.String("ctl", "", "listen for control commands on this unix socket")
	caps := flag.String("caps", "actions,body,inline-reply", "capabilities, comma-separated")
	ready := flag.String("ready", "", "create FILE once the name is owned")
	flag.Parse()
	if err := serve(*logPath, *ctlPath, *caps, *ready); err != nil {
		fmt.Fprintln(os.Stderr, "notifyd:", err)
		os.Exit(2)
	}
}

// server is the exported D-Bus object.
type server struct {
	conn *dbus.Conn
	caps []string

	mu   sync.Mutex
	log  *os.File
	next uint32
	live map[uint32]bool
	last uint32
}

func serve(logPath, ctlPath, caps, ready string) error {
	if logPath == "" {
		return errors.New("-log FILE is required")
	}
	lf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	// The bus's socket is there a moment before dbus-daemon listens on it
	// (connection refused): on a loaded machine that moment is long.
	conn, err := dbus.ConnectSessionBus()
	for end := time.Now().Add(10 * time.Second); err != nil && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
		conn, err = dbus.ConnectSessionBus()
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	s := &server{conn: conn, log: lf, live: map[uint32]bool{}}
	if caps != "" {
		s.caps = strings.Split(caps, ",")
	}
	if err := conn.Export(s, path, iface); err != nil {
		return err
	}
	reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil {
		return err
	}
	if reply != dbus.RequestNameReplyPrimaryOwner {
		return fmt.Errorf("%s is already owned on this bus", name)
	}
	if ctlPath != "" {
		os.Remove(ctlPath)
		ln, err := net.Listen("unix", ctlPath)
		if err != nil {
			return err
		}
		defer ln.Close()
		go s.control(ln)
	}
	if ready != "" {
		if err := os.WriteFile(ready, []byte("ready\n"), 0o644); err != nil {
			return err
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return nil
}

func (s *server) record(call string, fields map[string]any) {
	fields["t_ns"] = time.Now().UnixNano()
	fields["call"] = call
	b, _ := json.Marshal(fields)
	s.log.Write(append(b, '\n'))
}

// Notify is the freedesktop method; replaces_id 0 means a new id.
func (s *server) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := replaces
	if id == 0 || !s.live[id] {
		s.next++
		id = s.next
	}
	s.live[id] = true
	s.last = id
	h := map[string]any{}
	for k, v := range hints {
		h[k] = v.Value()
	}
	s.record("Notify", map[string]any{"id": id, "app": app, "replaces": replaces, "icon": icon,
		"summary": summary, "body": body, "actions": actions, "hints": h, "timeout": timeout})
	return id, nil
}

func (s *server) CloseNotification(id uint32) *dbus.Error {
	s.mu.Lock()
	live := s.live[id]
	delete(s.live, id)
	s.record("CloseNotification", map[string]any{"id": id, "live": live})
	s.mu.Unlock()
	if !live {
		return dbus.NewError(iface+".Error.NotFound", []any{fmt.Sprintf("no notification %d", id)})
	}
	s.conn.Emit(path, iface+".NotificationClosed", id, uint32(3))
	return nil
}

func (s *server) GetCapabilities() ([]string, *dbus.Error) { return s.caps, nil }

func (s *server) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "notifyd", "ag", "1", "1.2", nil
}

func (s *server) control(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			line, _ := bufio.NewReader(c).ReadString('\n')
			if err := s.command(strings.TrimRight(line, "\n")); err != nil {
				fmt.Fprintf(c, "error: %v\n", err)
				return
			}
			fmt.Fprintln(c, "ok")
		}()
	}
}

// command runs one control line: action ID KEY | reply ID TEXT | close ID [REASON].
func (s *server) command(line string) error {
	verb, rest, _ := strings.Cut(line, " ")
	idArg, arg, _ := strings.Cut(rest, " ")
	s.mu.Lock()
	var id uint32
	if idArg == "last" {
		id = s.last
	} else {
		n, err := strconv.ParseUint(idArg, 10, 32)
		if err != nil {
			s.mu.Unlock()
			return fmt.Errorf("bad id %q", idArg)
		}
		id = uint32(n)
	}
	live := s.live[id]
	s.mu.Unlock()
	if !live {
		return fmt.Errorf("no live notification %d", id)
	}
	closeIt := func(reason uint32) {
		s.mu.Lock()
		delete(s.live, id)
		s.mu.Unlock()
		s.conn.Emit(path, iface+".NotificationClosed", id, reason)
	}
	switch verb {
	case "action":
		if err := s.conn.Emit(path, iface+".ActionInvoked", id, arg); err != nil {
			return err
		}
		closeIt(2)
	case "reply":
		if err := s.conn.Emit(path, iface+".NotificationReplied", id, arg); err != nil {
			return err
		}
		closeIt(2)
	case "close":
		reason := uint64(2)
		if arg != "" {
			reason, _ = strconv.ParseUint(arg, 10, 32)
		}
		closeIt(uint32(reason))
	default:
		return fmt.Errorf("unknown command %q", verb)
	}
	return nil
}

// ctl sends one command to a running notifyd and prints its answer.
func ctl(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: notifyd ctl SOCKET action|reply|close ID [ARG...]")
		return 2
	}
	c, err := net.Dial("unix", args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "notifyd ctl:", err)
		return 2
	}
	defer c.Close()
	fmt.Fprintln(c, strings.Join(args[1:], " "))
	ans, _ := bufio.NewReader(c).ReadString('\n')
	ans = strings.TrimSpace(ans)
	if ans != "ok" {
		fmt.Fprintln(os.Stderr, "notifyd ctl:", ans)
		return 1
	}
	return 0
}
