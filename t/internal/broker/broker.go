// Package broker runs a real mosquitto MQTT broker for tests: a free
// loopback port and a config the test writes (persistence on, so a restart
// keeps retained messages and persistent subscribers' sessions), with
// mosquitto's own clients to talk to it.
package broker

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Broker is one mosquitto.
type Broker struct {
	t    testing.TB
	dir  string
	Port int
	cmd  *exec.Cmd
}

func bin() string {
	if p, err := exec.LookPath("mosquitto"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/mosquitto"); err == nil {
		return "/usr/sbin/mosquitto"
	}
	return ""
}

// Start starts a broker, or skips the test where mosquitto or its clients
// are missing.
func Start(t testing.TB) *Broker {
	t.Helper()
	for _, p := range []string{"mosquitto_pub", "mosquitto_sub"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip("no " + p + " (mosquitto-clients)")
		}
	}
	if bin() == "" {
		t.Skip("no mosquitto")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &Broker{t: t, dir: t.TempDir(), Port: l.Addr().(*net.TCPAddr).Port}
	l.Close()
	conf := fmt.Sprintf("listener %d 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location %s/\nlog_dest file %s/log\n", b.Port, b.dir, b.dir)
	if err := os.WriteFile(filepath.Join(b.dir, "mosquitto.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	b.Start()
	t.Cleanup(b.Stop)
	return b
}

// Start starts the broker (again) and waits until it takes a message.
func (b *Broker) Start() {
	b.t.Helper()
	b.cmd = exec.Command(bin(), "-c", filepath.Join(b.dir, "mosquitto.conf"))
	if err := b.cmd.Start(); err != nil {
		b.t.Fatal(err)
	}
	var out []byte
	var err error
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if out, err = exec.Command("mosquitto_pub", b.Args("-t", "ag/ping", "-n")...).CombinedOutput(); err == nil {
			return
		}
	}
	b.t.Fatalf("mosquitto does not answer: %s", out)
}

// Stop ends the broker as a service manager does (SIGTERM: it saves its
// persistence file).
func (b *Broker) Stop() {
	if b.cmd == nil {
		return
	}
	b.cmd.Process.Signal(syscall.SIGTERM)
	b.cmd.Wait()
	b.cmd = nil
}

// Args are the client options that reach the broker, then more.
func (b *Broker) Args(more ...string) []string {
	return append([]string{"-h", "127.0.0.1", "-p", strconv.Itoa(b.Port)}, more...)
}

// Options is Args as one string, for AG_MQTT and shell lines.
func (b *Broker) Options() string { return strings.Join(b.Args(), " ") }

// Publish publishes one message at QoS 1.
func (b *Broker) Publish(topic, line string) {
	b.t.Helper()
	if out, err := exec.Command("mosquitto_pub", b.Args("-q", "1", "-t", topic, "-m", strings.TrimSpace(line))...).CombinedOutput(); err != nil {
		b.t.Fatalf("mosquitto_pub: %v %s", err, out)
	}
}

// Dropped is what the broker's log says of messages it dropped for a
// client whose queue was full ("" if nothing).
func (b *Broker) Dropped() string {
	log, _ := os.ReadFile(filepath.Join(b.dir, "log"))
	var out []string
	for _, l := range strings.Split(string(log), "\n") {
		if strings.Contains(strings.ToLower(l), "drop") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
