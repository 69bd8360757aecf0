//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agwatch/ag/t/fakeapi/openai"
)

// Codex is the Codex CLI release these tests pin: its screens, keys and
// hook payloads are what the assertions were written against
// (research/agents-live.md §2).
var Codex = NPMPackage{Name: "@openai/codex", Version: "0.171.0", Bin: "codex", Dir: "codex-0.171.0"}

// Screen texts of Codex 0.171.0.
const (
	CodexIdle       = "Ask Codex to do anything"
	CodexShortcuts  = "? for shortcuts"
	CodexReady      = "fake-model default" // the model line: the session is configured
	CodexWorking    = "esc to interrupt"
	CodexPermission = "Would you like to run the following command?"
	CodexDenied     = "Conversation interrupted"
)

// CodexArgs are the flags every test starts Codex with. --no-daemon: since
// 0.17x Codex by default runs every session of a CODEX_HOME in one shared
// `codex app-server` with no terminal, and hooks run inside that server,
// so their pid and $TMUX_PANE are the server's and the first TUI's, never
// the session's; with --no-daemon the TUI runs its session and its hooks
// itself, in its pane. --dangerously-bypass-hook-trust runs ag's hooks
// without the /hooks review (it only works with --no-daemon).
var CodexArgs = []string{"--no-daemon", "--dangerously-bypass-hook-trust"}

// FakeOpenAI starts the fake Responses API (stopped at teardown; its
// request log is shown on failure) and sets the key Codex's provider reads.
func (h *Harness) FakeOpenAI(opts openai.Options) *openai.Server {
	h.T.Helper()
	api, err := openai.Start(opts)
	if err != nil {
		h.T.Fatal(err)
	}
	h.OnClose(func() { api.Close() })
	h.addFake("OpenAI", api)
	h.Setenv("FAKE_API_KEY", "fake")
	return api
}

// CodexConfig writes $CODEX_HOME/config.toml ($HOME/.codex, also set as
// CODEX_HOME so ag-hook and ag-tail look where the CLI writes): a custom
// model provider on the fake API, no retries, approval on request (an
// escalated command asks), the project folders trusted (no trust screen),
// no update check, no telemetry. It registers the teardown that stops a
// background app-server should one have been started anyway.
func (h *Harness) CodexConfig(bin string, api *openai.Server, dirs ...string) string {
	h.T.Helper()
	home := filepath.Join(h.Home, ".codex")
	if err := os.MkdirAll(home, 0o700); err != nil {
		h.T.Fatal(err)
	}
	cfg := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake"
base_url = %q
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[tui]
screen_reader_detection_done = true
`, api.URL+"/v1")
	for _, d := range append([]string{h.Project}, dirs...) {
		cfg += fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", d)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		h.T.Fatal(err)
	}
	h.Setenv("CODEX_HOME", home)
	h.Dump("codex config.toml", func() string { return tailFile(filepath.Join(home, "config.toml"), 200) })
	h.Dump("codex hooks.json", func() string { return tailFile(filepath.Join(home, "hooks.json"), 200) })
	h.Dump("codex rollouts", func() string {
		files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "rollout-*.jsonl"))
		s := ""
		for _, f := range files {
			s += "--- " + f + "\n" + tailFile(f, 80)
		}
		return s
	})
	// The shared server outlives the TUI that started it: stop it, or it
	// keeps the root's files open after the test.
	h.OnClose(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "app-server", "daemon", "stop")
		cmd.Env, cmd.Dir = h.Environ(), h.Project
		cmd.Run() // "not running" is the usual answer
		// stop leaves the server's "pid-update-loop" child behind: end
		// whatever still runs from the copy it installed under the root.
		killUnder(h.Root)
	})
	return home
}

// killUnder kills every process whose executable lies under dir (Linux
// /proc; elsewhere nothing is found).
func killUnder(dir string) {
	eachProc(func(pid int, proc string) bool {
		if exe, err := os.Readlink(filepath.Join(proc, "exe")); err == nil && strings.HasPrefix(exe, dir+"/") {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		return true
	})
}

// StartCodex runs codex (with CodexArgs and args) in a new pane in the
// project folder and waits for its idle composer.
func (h *Harness) StartCodex(tm *Tmux, name, bin string, args ...string) *Pane {
	h.T.Helper()
	argv := append(append([]string{bin}, CodexArgs...), args...)
	p := tm.NewPane(name, h.Project, nil, argv...)
	p.WaitText(90*time.Second, CodexIdle, CodexShortcuts, CodexReady)
	return p
}

var codexLeftRe = regexp.MustCompile(`Context window:\s+(\d+)% left`)

// CodexStatusLeft types /status and reads the "Context window: N% left"
// Codex prints into its history. ok is false when it shows no percentage.
func (p *Pane) CodexStatusLeft(timeout time.Duration) (left int, screen string, ok bool) {
	p.tm.h.T.Helper()
	p.Type("/status")
	deadline := time.Now().Add(timeout)
	for {
		screen = p.Capture()
		if m := codexLeftRe.FindStringSubmatch(screen); m != nil {
			left, _ = strconv.Atoi(m[1])
			ok = true
			break
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return left, screen, ok
}

// TrustCodexHooks trusts every hook in $CODEX_HOME/hooks.json the way the
// /hooks screen does: it asks `codex app-server` (JSON-RPC on stdio:
// initialize, then hooks/list) for each handler's key and current hash and
// writes [hooks.state."<key>"] trusted_hash into config.toml. The shared
// background server runs only trusted hooks; --dangerously-bypass-hook-trust
// works only with --no-daemon.
func (h *Harness) TrustCodexHooks(bin string) int {
	h.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "app-server")
	cmd.Env, cmd.Dir = h.Environ(), h.Project
	in, err := cmd.StdinPipe()
	if err != nil {
		h.T.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		h.T.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.T.Fatalf("codex app-server: %v", err)
	}
	defer func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"ag-e2e","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"initialized"}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"hooks/list","params":{"cwds":[%q]}}`, h.Project),
	} {
		if _, err := io.WriteString(in, m+"\n"); err != nil {
			h.T.Fatal(err)
		}
	}
	var list struct {
		ID     int `json:"id"`
		Result struct {
			Data []struct {
				Hooks []struct {
					Key         string `json:"key"`
					CurrentHash string `json:"currentHash"`
				} `json:"hooks"`
			} `json:"data"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		list.ID = 0
		if json.Unmarshal(sc.Bytes(), &list) == nil && list.ID == 2 {
			break
		}
	}
	if list.ID != 2 || len(list.Error) > 0 || len(list.Result.Data) == 0 {
		h.T.Fatalf("codex app-server hooks/list: no answer (%v, error %s)", sc.Err(), list.Error)
	}
	trust := "\n[hooks.state]\n"
	n := 0
	for _, hk := range list.Result.Data[0].Hooks {
		trust += fmt.Sprintf("\n[hooks.state.%q]\ntrusted_hash = %q\n", hk.Key, hk.CurrentHash)
		n++
	}
	f, err := os.OpenFile(filepath.Join(h.Getenv("CODEX_HOME"), "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		h.T.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(trust); err != nil {
		h.T.Fatal(err)
	}
	return n
}
