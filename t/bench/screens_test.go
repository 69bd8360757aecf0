//go:build bench

package bench

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// The screen-only agent these tests run in every pane: the test binary
// itself, copied as "spinagent" and run with AG_BENCH_SCREEN_AGENT=1 (see
// TestMain). It reads one key at a time from its terminal: b works (a
// spinner redrawn every 100 ms, as agents draw theirs), w asks (a
// dialog), i goes back to its prompt. It logs when each screen was
// written, so a test knows when a change reached tmux.
const spinDefinition = `id = "spin"
name = "Spin agent"

[process]
names = ["spinagent"]

[screen]
[[screen.state]]
name = "ask"
kind = "wait"
attention = "permission"
anchor = '^  \[y\] yes  \[n\] no$'
all = [{ match = '^  Run (.+)\?$', from = -1, to = -1 }]
bottom = 1
tool = "shell"
text = { start = '^  Run (.+)\?$', inline = true, within = 1 }

[[screen.state]]
name = "working"
kind = "busy"
anchor = '^ [⠁-⣿] spin is thinking… \(esc to stop\)$'
bottom = 1

[[screen.state]]
name = "idle"
kind = "idle"
anchor = '^spin>$'
bottom = 0

[keys]
approve = ["y"]
deny = ["n"]
`

// spinAgent is the agent's main.
func spinAgent() {
	stty := exec.Command("stty", "-icanon", "-echo", "min", "1")
	stty.Stdin = os.Stdin
	stty.Run()
	logf, _ := os.OpenFile(os.Getenv("AG_BENCH_SCREEN_LOG"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	keys := make(chan byte)
	go func() {
		b := make([]byte, 1)
		for {
			if _, err := os.Stdin.Read(b); err != nil {
				close(keys)
				return
			}
			keys <- b[0]
		}
	}()
	spin := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
	frame := 0
	var tick <-chan time.Time
	ticker := time.NewTicker(100 * time.Millisecond)
	ticker.Stop()
	show := func(mode byte, s string) {
		os.Stdout.WriteString(s)
		fmt.Fprintf(logf, "%c %d\n", mode, time.Now().UnixNano())
	}
	show('i', "\x1b[H\x1b[2Jspin> ")
	for {
		select {
		case k, ok := <-keys:
			if !ok {
				return
			}
			switch k {
			case 'b':
				ticker.Reset(100 * time.Millisecond)
				tick = ticker.C
				show('b', fmt.Sprintf("\x1b[H\x1b[2Jspin> task\n %c spin is thinking… (esc to stop)", spin[frame]))
			case 'w':
				ticker.Stop()
				tick = nil
				show('w', "\x1b[H\x1b[2Jspin> task\n\n  Run make?\n  [y] yes  [n] no\n")
			case 'i':
				ticker.Stop()
				tick = nil
				show('i', "\x1b[H\x1b[2Jspin> ")
			}
		case <-tick:
			frame = (frame + 1) % len(spin)
			os.Stdout.WriteString(fmt.Sprintf("\r %c spin is thinking… (esc to stop)", spin[frame]))
		}
	}
}

// screens is a private tmux server with n panes of spinagent, and
// ag-detect --watch --all --panes following it.
type screens struct {
	t      *testing.T
	sock   string
	panes  []string
	logDir string
	env    []string
	detect *exec.Cmd
	mu     sync.Mutex
	events []seenEvent
}

type seenEvent struct {
	e  event.Event
	at time.Time
}

func newScreens(t *testing.T, n int) *screens {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	agent := filepath.Join(dir, "spinagent")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(self, agent); err != nil {
		data, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(agent, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "config", "ag", "agents")
	os.MkdirAll(cfg, 0o755)
	if err := os.WriteFile(filepath.Join(cfg, "spin.toml"), []byte(spinDefinition), 0o644); err != nil {
		t.Fatal(err)
	}
	sockDir, err := os.MkdirTemp("", "ags")
	if err != nil {
		t.Fatal(err)
	}
	s := &screens{t: t, sock: filepath.Join(sockDir, "s"), logDir: filepath.Join(dir, "logs")}
	os.MkdirAll(s.logDir, 0o755)
	s.env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "AG_DIR="+filepath.Join(dir, "ag"))
	run := func(i int) string {
		return fmt.Sprintf("env AG_BENCH_SCREEN_AGENT=1 AG_BENCH_SCREEN_LOG=%s %s", filepath.Join(s.logDir, strconv.Itoa(i)), agent)
	}
	s.tmux("-f", "/dev/null", "new-session", "-d", "-s", "spin", "-x", "100", "-y", "20", run(0))
	t.Cleanup(func() { exec.Command("tmux", "-S", s.sock, "kill-server").Run(); os.RemoveAll(sockDir) })
	for i := 1; i < n; i++ {
		s.tmux("new-window", "-d", "-t", "spin:", run(i))
	}
	s.panes = strings.Fields(s.tmux("list-panes", "-s", "-t", "spin", "-F", "#{pane_id}"))
	for i := range s.panes {
		s.waitLog(i, 'i', time.Time{})
	}
	return s
}

func (s *screens) tmux(args ...string) string {
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// key sends a key to pane i's agent.
func (s *screens) key(i int, k string) { s.tmux("send-keys", "-t", s.panes[i], k) }

// waitLog waits until pane i's agent wrote screen mode after since, and
// says when.
func (s *screens) waitLog(i int, mode byte, since time.Time) time.Time {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(filepath.Join(s.logDir, strconv.Itoa(i)))
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for j := len(lines) - 1; j >= 0; j-- {
			var m byte
			var ns int64
			if n, _ := fmt.Sscanf(lines[j], "%c %d", &m, &ns); n == 2 && m == mode && time.Unix(0, ns).After(since) {
				return time.Unix(0, ns)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Fatalf("pane %d never showed %c", i, mode)
	return time.Time{}
}

// start runs ag-detect --watch --all --panes, its events read as they come.
func (s *screens) start() {
	s.detect = exec.Command(bin("ag-detect"), "-S", s.sock, "--watch", "--all", "--panes")
	s.detect.Env = s.env
	var errb strings.Builder
	s.detect.Stderr = &errb
	out, err := s.detect.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.detect.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() {
		s.detect.Process.Kill()
		s.detect.Wait()
		if errb.Len() > 0 {
			s.t.Logf("ag-detect: %s", errb.String())
		}
	})
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			at := time.Now()
			var e event.Event
			if event.Decode(sc.Bytes(), &e) == nil {
				s.mu.Lock()
				s.events = append(s.events, seenEvent{e, at})
				s.mu.Unlock()
			}
		}
		io.Copy(io.Discard, out)
	}()
}

// waitEvent waits for an event of kind (and reason) for pane after
// since, and says when ag-detect wrote it.
func (s *screens) waitEvent(pane, kind, reason string, since time.Time) time.Time {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		for _, se := range s.events {
			if se.e.Pane == pane && se.e.Kind == kind && se.e.Reason == reason && se.at.After(since) {
				s.mu.Unlock()
				return se.at
			}
		}
		s.mu.Unlock()
		time.Sleep(2 * time.Millisecond)
	}
	s.mu.Lock()
	for _, se := range s.events {
		s.t.Logf("%s %s %s %s %s", se.at.Format("15:04:05.000"), se.e.Pane, se.e.Kind, se.e.Reason, se.e.Why)
	}
	s.mu.Unlock()
	s.t.Fatalf("no %s %s for %s", kind, reason, pane)
	return time.Time{}
}

// pids are ag-detect and its control clients (its children).
func (s *screens) pids() []int {
	return append([]int{s.detect.Process.Pid}, children(s.detect.Process.Pid)...)
}

// serverPID is the tmux server's.
func (s *screens) serverPID() int {
	n, _ := strconv.Atoi(s.tmux("display-message", "-p", "#{pid}"))
	return n
}

// onCPU is the scheduler's count of time on a CPU for the processes.
func onCPU(pids ...int) time.Duration {
	var d time.Duration
	for _, p := range pids {
		d += taskSched(p, nil)
	}
	return d
}

// TestScreensCPU: 20 panes of a screen-only agent (a definition, no
// hooks), ag-detect --watch --all --panes following them through tmux's
// control mode. Idle (every agent at its prompt, nothing printed) for
// AG_BENCH_IDLE_SECONDS (60), then busy (every agent redrawing a spinner
// every 100 ms) for 20 s: ag-detect's on-CPU time (and its control
// client's), against the idle budget; the tmux server's, busy, with and
// without ag-detect.
func TestScreensCPU(t *testing.T) {
	const n = 20
	seconds := 60
	if v := os.Getenv("AG_BENCH_IDLE_SECONDS"); v != "" {
		seconds, _ = strconv.Atoi(v)
	}
	s := newScreens(t, n)
	server := s.serverPID()
	const busyFor = 20 * time.Second
	// The server alone, the agents busy: what tmux costs without ag.
	for i := range s.panes {
		s.key(i, "b")
	}
	time.Sleep(2 * time.Second)
	b0, t0 := onCPU(server), time.Now()
	time.Sleep(busyFor)
	serverAlone := 100 * float64(onCPU(server)-b0) / float64(time.Since(t0))
	for i := range s.panes {
		s.key(i, "i")
	}
	s.start()
	for _, p := range s.panes {
		s.waitEvent(p, event.ProcUp, "", time.Time{})
	}
	// Settled: the idle screens read, a second with no time on CPU.
	time.Sleep(3 * time.Second)
	pids := s.pids()
	a0, sv0, t1 := onCPU(pids...), onCPU(server), time.Now()
	time.Sleep(time.Duration(seconds) * time.Second)
	wall := time.Since(t1)
	idle := onCPU(pids...) - a0
	idlePct := 100 * float64(idle) / float64(wall)
	serverIdle := 100 * float64(onCPU(server)-sv0) / float64(wall)
	t.Logf("idle, %d panes, %s: ag-detect and its control client %v on CPU = %.4f %% of one core (tmux server %.4f %%)", n, wall.Round(time.Millisecond), idle, idlePct, serverIdle)
	figure(fmt.Sprintf("ag-detect --watch --all --panes, %d screen-only agent panes idle, %d s", n, seconds),
		fmt.Sprintf("%.4f %% of one core (the tmux server %.4f %%)", idlePct, serverIdle), "0.1 %", idlePct < idleBudget)
	if idlePct > idleBudget {
		t.Errorf("idle: %.4f %% of one core, over the %.1f %% budget", idlePct, idleBudget)
	}

	since := time.Now()
	for i, p := range s.panes {
		s.key(i, "b")
		s.waitEvent(p, event.TurnStart, "", since)
	}
	time.Sleep(time.Second)
	a1, sv1, t2 := onCPU(pids...), onCPU(server), time.Now()
	time.Sleep(busyFor)
	wall = time.Since(t2)
	busyPct := 100 * float64(onCPU(pids...)-a1) / float64(wall)
	serverBusy := 100 * float64(onCPU(server)-sv1) / float64(wall)
	t.Logf("busy, %d panes redrawing 10 times a second, %s: ag-detect and its control client %.3f %% of one core; the tmux server %.3f %% (%.3f %% with no ag-detect)",
		n, wall.Round(time.Millisecond), busyPct, serverBusy, serverAlone)
	figure(fmt.Sprintf("ag-detect --watch --all --panes, %d screen-only agent panes busy (a spinner at 10 frames/s each)", n),
		fmt.Sprintf("%.2f %% of one core; the tmux server %.2f %% (%.2f %% without ag-detect)", busyPct, serverBusy, serverAlone), "", true)
	for i := range s.panes {
		s.key(i, "i")
	}
}

// TestScreenLatency: from an agent writing a new screen to ag-detect
// writing what it means, through the control client. "after a pause": a
// dialog coming up at a prompt that has been still for a second and a
// half (wait), and the prompt coming back a moment after (the turn's
// end), 20 times. "while it prints": the dialog coming up in a pane
// that has redrawn its spinner for three to four seconds (so ag-detect
// reads it only every second by then), 10 times, while the 19 other panes redraw
// theirs.
func TestScreenLatency(t *testing.T) {
	const n = 20
	s := newScreens(t, n)
	s.start()
	for _, p := range s.panes {
		s.waitEvent(p, event.WaitEnd, event.ReasonIdle, time.Time{})
	}
	measure := func(name string, rounds int, prep func()) {
		var waits, ends []time.Duration
		for r := 0; r < rounds; r++ {
			prep()
			since := time.Now()
			s.key(0, "w")
			written := s.waitLog(0, 'w', since)
			waits = append(waits, s.waitEvent(s.panes[0], event.Wait, "", since).Sub(written))
			time.Sleep(1500 * time.Millisecond)
			since = time.Now()
			s.key(0, "i")
			written = s.waitLog(0, 'i', since)
			// The prompt back after a prompt: the turn's end.
			ends = append(ends, s.waitEvent(s.panes[0], event.TurnEnd, "", since).Sub(written))
		}
		slices.Sort(waits)
		slices.Sort(ends)
		t.Logf("%s: screen → wait median %v (min %v, max %v); prompt back → turn.end median %v (max %v)",
			name, waits[len(waits)/2], waits[0], waits[len(waits)-1], ends[len(ends)/2], ends[len(ends)-1])
		figure("a screen change → ag-detect's event, "+name, fmt.Sprintf("wait %s median (max %s), n=%d; its end %s (max %s)",
			round(waits[len(waits)/2]), round(waits[len(waits)-1]), len(waits), round(ends[len(ends)/2]), round(ends[len(ends)-1])), "", true)
	}
	measure("after a pause", 20, func() { time.Sleep(1500 * time.Millisecond) })
	for i := 1; i < n; i++ {
		s.key(i, "b")
	}
	measure("while it prints (19 other panes printing too)", 10, func() {
		time.Sleep(1500 * time.Millisecond)
		since := time.Now()
		s.key(0, "b")
		s.waitEvent(s.panes[0], event.TurnStart, "", since)
		time.Sleep(3*time.Second + time.Duration(rand.Int64N(int64(time.Second)))) // any phase of its reads
	})
}

// TestScreensNoServerCPU: ag-detect --watch --all --panes as the login
// pipeline runs it (its stdin a pipe from ag-tail, here one held open)
// with no tmux server on its socket, for AG_BENCH_IDLE_SECONDS (60): the
// socket's folder not there yet (a login before tmux ever ran), and a
// socket a dead server left. Then a server starts there: how long until
// its agent is seen.
func TestScreensNoServerCPU(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	seconds := 60
	if v := os.Getenv("AG_BENCH_IDLE_SECONDS"); v != "" {
		seconds, _ = strconv.Atoi(v)
	}
	// The agent: a copy of sleep named claude.
	binDir := t.TempDir()
	if err := exec.Command("cp", "/bin/sleep", filepath.Join(binDir, "claude")).Run(); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, stale := range []bool{false, true} {
		name := map[bool]string{false: "no folder", true: "a dead server's socket"}[stale]
		t.Run(name, func(t *testing.T) {
			base, err := os.MkdirTemp("", "agn")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(base)
			sock := filepath.Join(base, "tmux-1", "default")
			tmux := func(args ...string) {
				c := exec.Command("tmux", append([]string{"-S", sock}, args...)...)
				c.Env = env
				if out, err := c.CombinedOutput(); err != nil {
					t.Fatalf("tmux %v: %v: %s", args, err, out)
				}
			}
			if stale {
				os.MkdirAll(filepath.Dir(sock), 0o700)
				tmux("-f", "/dev/null", "new-session", "-d", "sleep 600")
				tmux("kill-server")
			}
			detect := exec.Command(bin("ag-detect"), "-S", sock, "--watch", "--all", "--panes")
			in, err := detect.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			out, err := detect.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			errf, err := os.Create(filepath.Join(base, "stderr"))
			if err != nil {
				t.Fatal(err)
			}
			detect.Stderr = errf
			if err := detect.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { detect.Process.Kill(); detect.Wait() }()
			said := func() string { b, _ := os.ReadFile(errf.Name()); return string(b) }
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(said(), "waiting for one"); {
				if time.Now().After(deadline) {
					t.Fatalf("ag-detect does not say it waits: %s", said())
				}
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(time.Second)
			a0, t0 := onCPU(detect.Process.Pid), time.Now()
			time.Sleep(time.Duration(seconds) * time.Second)
			wall := time.Since(t0)
			pct := 100 * float64(onCPU(detect.Process.Pid)-a0) / float64(wall)
			t.Logf("no tmux server (%s), %s: %.4f %% of one core", name, wall.Round(time.Millisecond), pct)
			figure(fmt.Sprintf("ag-detect --watch, no tmux server (%s), %d s", name, seconds),
				fmt.Sprintf("%.4f %% of one core", pct), "0.1 %", pct < idleBudget)
			if pct > idleBudget {
				t.Errorf("waiting: %.4f %% of one core, over the %.1f %% budget", pct, idleBudget)
			}

			// A server starts: its agent seen.
			seen := make(chan time.Time, 1)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					if strings.Contains(sc.Text(), `"kind":"proc.up"`) {
						seen <- time.Now()
						break
					}
				}
				io.Copy(io.Discard, out)
			}()
			os.MkdirAll(filepath.Dir(sock), 0o700)
			started := time.Now()
			tmux("-f", "/dev/null", "new-session", "-d", "claude 600")
			defer exec.Command("tmux", "-S", sock, "kill-server").Run()
			select {
			case at := <-seen:
				d := at.Sub(started)
				t.Logf("a server started → its agent seen: %v", d.Round(time.Millisecond))
				figure(fmt.Sprintf("tmux started after ag-detect --watch (%s) → its agent seen", name), round(d).String(), "", true)
			case <-time.After(15 * time.Second):
				t.Fatalf("the agent of a server started later was not seen: %s", said())
			}
		})
	}
}
