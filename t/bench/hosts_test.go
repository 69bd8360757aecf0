//go:build bench

package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agwatch/ag/t/internal/broker"
)

// Agents on other hosts through a real mosquitto on a free loopback port:
// each "host" an environment of its own (HOME, AG_DIR, AG_HOST), running the
// pipelines of contrib/ag-mqtt by hand so each stage's process is known.

type mqttBench struct {
	t   *testing.T
	dir string
	mq  string // client options
}

func newMQTTBench(t *testing.T) *mqttBench {
	br := broker.Start(t)
	return &mqttBench{t: t, dir: t.TempDir(), mq: br.Options()}
}

// group starts a command in a process group of its own (its pipeline's
// processes are all counted), killed at the end.
func (b *mqttBench) group(label string, env []string, name string, args ...string) (*exec.Cmd, io.Reader) {
	c := exec.Command(name, args...)
	c.Env = append(os.Environ(), env...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	errf, _ := os.Create(filepath.Join(b.dir, label+".err"))
	c.Stderr = errf
	out, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() {
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		c.Wait()
		errf.Close()
	})
	return c, out
}

// host is one host's environment with n sessions in its spool, each
// working (their pid this process's: alive).
func (b *mqttBench) host(name string, n int) []string {
	dir := filepath.Join(b.dir, name)
	os.MkdirAll(filepath.Join(dir, "home"), 0o700)
	os.MkdirAll(filepath.Join(dir, "ag"), 0o700)
	var spool strings.Builder
	now := time.Now().UTC()
	for i := 0; i < n; i++ {
		common := fmt.Sprintf(`"agent":"claude","session":"%s-%d","src":"hook","pid":%d,"host":%q,"pane":"%%%d"`, name, i, os.Getpid(), name, i)
		fmt.Fprintf(&spool, `{"v":1,"t":%q,"kind":"session.start",%s,"id":"%s-s%d"}`+"\n", now.Format("2006-01-02T15:04:05.000Z"), common, name, i)
		fmt.Fprintf(&spool, `{"v":1,"t":%q,"kind":"turn.start",%s,"id":"%s-t%d","text":"go"}`+"\n", now.Format("2006-01-02T15:04:05.000Z"), common, name, i)
	}
	os.WriteFile(filepath.Join(dir, "ag", "spool.ndjson"), []byte(spool.String()), 0o600)
	return []string{"HOME=" + filepath.Join(dir, "home"), "AG_DIR=" + filepath.Join(dir, "ag"), "AG_HOST=" + name,
		"XDG_RUNTIME_DIR=" + dir, "PATH=" + binDir + ":" + os.Getenv("PATH")}
}

// publishHost runs a host's side: states out, actions in.
func (b *mqttBench) publishHost(name string, env []string) []*exec.Cmd {
	states, _ := b.group(name+"-states", env, "sh", "-c", fmt.Sprintf(
		`ag-tail --follow | ag-fold --publish "mosquitto_pub %[1]s -q 1 -r -s -t ag/%[2]s/snapshot" | mosquitto_pub %[1]s -q 1 -l -t ag/%[2]s/states`, b.mq, name))
	keys, _ := b.group(name+"-keys", env, "sh", "-c", fmt.Sprintf(
		`mosquitto_sub %[1]s -q 1 -t ag/actions | ag-keys >/dev/null`, b.mq))
	return []*exec.Cmd{states, keys}
}

// workstation runs the fan-in; its stdout is a copy of ag-notify's.
func (b *mqttBench) workstation(env []string) (*exec.Cmd, io.Reader) {
	return b.group("ws", env, "sh", "-c", fmt.Sprintf(
		`exec 3>&1; mosquitto_sub %[1]s -q 1 -t 'ag/+/states' -t 'ag/+/snapshot' | ag-fold --no-state --check 0 --where '.host != "ws"' | `+
			`ag-fold | ag-notify --backend exec --exec true | tee /dev/fd/3 | mosquitto_pub %[1]s -q 1 -l -t ag/actions`, b.mq))
}

// groupCPU is the CPU time of every process in the process group pgid,
// from the scheduler's own count.
func groupCPU(pgid int) time.Duration {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var total time.Duration
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) > 3 && f[2] == strconv.Itoa(pgid) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
			total += taskSched(pid, nil)
		}
	}
	return total
}

// TestMQTTNotifyLatency: a hook on host B (ag-hook, as Claude runs it) to
// the notification delivered on the workstation, through ag-tail, ag-fold,
// mosquitto_pub, the broker, mosquitto_sub, the workstation's ag-folds and
// ag-notify. Budget: median under 50 ms on loopback.
func TestMQTTNotifyLatency(t *testing.T) {
	b := newMQTTBench(t)
	env := b.host("hostb", 0)
	b.publishHost("hostb", env)
	_, out := b.workstation(b.host("ws", 0))
	delivered := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if l := sc.Text(); strings.Contains(l, `"kind":"notify"`) && strings.Contains(l, `"action":"deliver"`) {
				delivered <- l
			}
		}
	}()
	hook := func(session, payload string) {
		c := exec.Command(bin("ag-hook"), "claude")
		c.Env = append(os.Environ(), append(env, "TMUX_PANE=%1")...)
		c.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":%q,%s}`, session, payload))
		if err := c.Run(); err != nil {
			t.Fatal(err)
		}
	}
	n := 20
	var ds []time.Duration
	for i := 0; i < n+3; i++ {
		s := fmt.Sprintf("lat-%d", i)
		hook(s, `"hook_event_name":"SessionStart","source":"startup"`)
		hook(s, `"hook_event_name":"UserPromptSubmit","prompt":"go"`)
		time.Sleep(300 * time.Millisecond) // settled: only the wait is timed
		start := time.Now()
		hook(s, `"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"make"}`)
		select {
		case l := <-delivered:
			if !strings.Contains(l, s) {
				t.Fatalf("delivered another session's: %s", l)
			}
			if i >= 3 { // the first runs warm the page cache and the broker
				ds = append(ds, time.Since(start))
			}
		case <-time.After(10 * time.Second):
			ws, _ := os.ReadFile(filepath.Join(b.dir, "ws.err"))
			h, _ := os.ReadFile(filepath.Join(b.dir, "hostb-states.err"))
			t.Fatalf("no notification for %s; workstation: %s; host: %s", s, ws, h)
		}
	}
	slices.Sort(ds)
	med := ds[len(ds)/2]
	fmt.Printf("BENCH mqtt hook on host B -> notification on the workstation: median %s (min %s, max %s, n=%d), budget 50ms\n",
		round(med), round(ds[0]), round(ds[len(ds)-1]), len(ds))
	if med > 50*time.Millisecond {
		t.Errorf("median %s over the 50 ms budget", med)
	}
}

// TestMQTTIdleFanIn: 3 hosts × 20 sessions publishing to a workstation,
// everything settled, then AG_BENCH_IDLE_SECONDS (60) with nothing
// happening: the CPU the workstation's fan-in, the hosts' pipelines and
// the broker use meanwhile.
func TestMQTTIdleFanIn(t *testing.T) {
	seconds := 60
	if s := os.Getenv("AG_BENCH_IDLE_SECONDS"); s != "" {
		seconds, _ = strconv.Atoi(s)
	}
	b := newMQTTBench(t)
	var hosts []*exec.Cmd
	for _, h := range []string{"hosta", "hostb", "hostc"} {
		hosts = append(hosts, b.publishHost(h, b.host(h, 20))...)
	}
	ws, out := b.workstation(b.host("ws", 0))
	states := make(chan struct{}, 1024)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"kind":"state"`) {
				select {
				case states <- struct{}{}:
				default:
				}
			}
		}
	}()
	// Settled: 60 states seen, then two quiet seconds.
	seen := 0
	for deadline := time.After(time.Minute); seen < 60; {
		select {
		case <-states:
			seen++
		case <-deadline:
			t.Fatalf("the workstation saw %d states", seen)
		}
	}
	for quiet := time.After(2 * time.Second); ; {
		select {
		case <-states:
			quiet = time.After(2 * time.Second)
			continue
		case <-quiet:
		}
		break
	}
	wsBefore, hostsBefore := groupCPU(ws.Process.Pid), time.Duration(0)
	for _, h := range hosts {
		hostsBefore += groupCPU(h.Process.Pid)
	}
	time.Sleep(time.Duration(seconds) * time.Second)
	wsCPU := groupCPU(ws.Process.Pid) - wsBefore
	var hostsCPU time.Duration
	for _, h := range hosts {
		hostsCPU += groupCPU(h.Process.Pid)
	}
	hostsCPU -= hostsBefore
	pct := func(d time.Duration) float64 { return 100 * d.Seconds() / float64(seconds) }
	fmt.Printf("BENCH mqtt idle fan-in, 3 hosts x 20 sessions, %ds: workstation %.4f%% of one core (%s), the three hosts' pipelines %.4f%% (%s)\n",
		seconds, pct(wsCPU), wsCPU.Round(time.Microsecond), pct(hostsCPU), hostsCPU.Round(time.Microsecond))
	if pct(wsCPU) > idleBudget {
		t.Errorf("the idle workstation used %.4f%% of a core (budget %.1f%%)", pct(wsCPU), idleBudget)
	}
}
