//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// OpenCode is the release these tests pin (research/agents-live.md §4a).
var OpenCode = NPMPackage{Name: "opencode-ai", Version: "1.18.33", Bin: "opencode", Dir: "opencode-1.18.33"}

// OpenCodePluginDeps is what OpenCode installs into its config directory,
// with npm, when it starts with a plugin there (any plugin: verified on
// 1.18.33), and waits for; installed once here and copied in, so a test
// run never reaches for the registry.
var OpenCodePluginDeps = NPMPackage{Name: "@opencode-ai/plugin", Version: "1.18.33", Dir: "opencode-1.18.33-plugin", Save: true}

// Screen texts of OpenCode 1.18.33.
const (
	OpenCodeReady      = "ctrl+p commands"
	OpenCodePermission = "Permission required"
	OpenCodeReject     = "Reject permission" // a sub-agent's rejection asks a reason
	OpenCodeDone       = "▣  Build · Fake Model ·"
)

// FakeChat starts the fake Chat Completions API (stopped at teardown; its
// request log is shown on failure).
func (h *Harness) FakeChat(opts chat.Options) *chat.Server {
	h.T.Helper()
	api, err := chat.Start(opts)
	if err != nil {
		h.T.Fatal(err)
	}
	h.OnClose(func() { api.Close() })
	h.addFake("Chat Completions", api)
	return api
}

// OpenCodeConfig writes $XDG_CONFIG_HOME/opencode/opencode.json — a
// provider on the fake API whose model declares a 128,000-token window,
// permission asked for every shell command and edit, no update, no share
// — puts the plugin's npm deps beside it, and sets the variables that
// keep OpenCode off the network. It returns the config directory.
func (h *Harness) OpenCodeConfig(api *chat.Server) string {
	h.T.Helper()
	deps := filepath.Dir(filepath.Dir(filepath.Dir(Install(h.T, OpenCodePluginDeps)))) // …/opencode-1.18.33-plugin
	dir := filepath.Join(h.Getenv("XDG_CONFIG_HOME"), "opencode")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.T.Fatal(err)
	}
	cp := exec.Command("cp", "-a", filepath.Join(deps, "node_modules"), filepath.Join(deps, "package.json"), filepath.Join(deps, "package-lock.json"), dir+"/")
	if out, err := cp.CombinedOutput(); err != nil {
		h.T.Fatalf("copying OpenCode's plugin deps: %v\n%s", err, out)
	}
	cfg := familyConfig("https://opencode.ai/config.json", api)
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), []byte(cfg), 0o600); err != nil {
		h.T.Fatal(err)
	}
	h.familyOffline("OPENCODE", "opencode")
	return dir
}

// StartOpenCode runs opencode (with args) in a new pane in the project
// folder, its server on port (0: none of ours), and waits for its composer.
func (h *Harness) StartOpenCode(tm *Tmux, name, bin string, port int, args ...string) *Pane {
	h.T.Helper()
	argv := []string{bin}
	if port != 0 {
		argv = append(argv, "--port", strconv.Itoa(port))
	}
	argv = append(argv, args...)
	p := tm.NewPane(name, h.Project, nil, argv...)
	// Its first start migrates a new database: slow when the machine is
	// busy. Once in a few dozen starts here it drew nothing at all for
	// minutes, its log ending at "init": it gets a second start.
	if !waitScreen(p, 2*time.Minute, OpenCodeReady) {
		h.T.Logf("opencode drew no composer within 2 minutes; started again. Its screen:\n%s", p.Capture())
		tm.Run("kill-session", "-t", name)
		p = tm.NewPane(name, h.Project, nil, argv...)
		p.WaitText(2*time.Minute, OpenCodeReady)
	}
	return p
}

// freePort is a TCP port free on 127.0.0.1 now.
func freePort(t interface{ Fatal(...any) }) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// OpenCodeAPI is the HTTP server an OpenCode TUI runs in its process
// (--port): another session of the same process can be made and prompted
// through it, as a second client would.
type OpenCodeAPI struct{ URL string }

// NewSession makes a session and returns its id.
func (a OpenCodeAPI) NewSession(t interface{ Fatalf(string, ...any) }) string {
	var s struct{ ID string }
	a.post(t, "/session", `{}`, &s)
	if s.ID == "" {
		t.Fatalf("opencode: POST /session gave no id")
	}
	return s.ID
}

// Prompt sends text to session id and returns at once (prompt_async).
func (a OpenCodeAPI) Prompt(t interface{ Fatalf(string, ...any) }, id, text string) {
	b, _ := json.Marshal(map[string]any{"parts": []any{map[string]string{"type": "text", "text": text}}})
	a.post(t, "/session/"+id+"/prompt_async", string(b), nil)
}

func (a OpenCodeAPI) post(t interface{ Fatalf(string, ...any) }, path, body string, out any) {
	c := http.Client{Timeout: 30 * time.Second}
	resp, err := c.Post(a.URL+path, "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatalf("opencode API %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("opencode API %s: %s: %s", path, resp.Status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("opencode API %s: %v: %s", path, err, b)
		}
	}
}

// lastLines is the last n non-blank lines of a screen.
func lastLines(screen string, n int) string {
	var keep []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, "\n")
}

// runCode runs a program in the harness environment and returns its
// output and exit status (a refusal is no failure of the test).
func (h *Harness) runCode(timeout time.Duration, argv ...string) (string, int) {
	h.T.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = h.Environ(), h.Project
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		cmd.Process.Kill()
		<-done
		h.T.Fatalf("%s: no answer within %s", strings.Join(argv, " "), timeout)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		h.T.Fatalf("%s: %v", strings.Join(argv, " "), err)
	}
	return string(out), 0
}

// detectAgent runs `ag-detect --all` and checks the pane's proc.up names
// agent and the pane's own process (each of these agents is one process,
// the pane's first).
func detectAgent(t *testing.T, h *Harness, tm *Tmux, pane *Pane, agent string) event.Event {
	t.Helper()
	out := h.Run(30*time.Second, Bin(t, "ag-detect"), "-S", tm.Socket, "--all")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e event.Event
		if event.Decode([]byte(line), &e) == nil && e.Kind == event.ProcUp && e.Pane == pane.ID {
			if e.Agent != agent || e.PID != pane.PID || e.TTY != pane.TTY {
				t.Errorf("ag-detect proc.up: %s\nwant agent %s, pid %d, tty %s", event.Marshal(&e), agent, pane.PID, pane.TTY)
			}
			return e
		}
	}
	t.Errorf("ag-detect --all: no proc.up for pane %s:\n%s", pane.ID, out)
	return event.Event{}
}

// panesOf is the attention of the wait `ag-detect --panes` reads in pane,
// polled for up to 10 s while the TUI draws ("" when it reports none;
// the screen is logged then).
func panesOf(t *testing.T, h *Harness, pane *Pane) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := h.Run(30*time.Second, Bin(t, "ag-detect"), "-S", pane.tm.Socket, "--all", "--panes")
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e event.Event
			if event.Decode([]byte(line), &e) == nil && e.Pane == pane.ID && e.Kind == event.Wait {
				return e.Attention
			}
		}
		if time.Now().After(deadline) {
			t.Logf("ag-detect --panes saw no wait in pane %s:\n%s", pane.ID, lastLines(pane.Capture(), 20))
			return ""
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// familyConfig is an OpenCode-family config (OpenCode's, Kilo's) with the
// $schema given: a provider on the fake API whose model declares a
// 128,000-token window, permission asked for every shell command and
// edit, no update, no share.
func familyConfig(schema string, api *chat.Server) string {
	return fmt.Sprintf(`{"$schema": %q,
 "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
   "options": {"baseURL": %q, "apiKey": "fake"},
   "models": {"fake-model": {"name": "Fake Model", "tool_call": true, "limit": {"context": 128000, "output": 4096}}}}},
 "model": "fake/fake-model", "small_model": "fake/fake-model",
 "autoupdate": false, "share": "disabled",
 "permission": {"bash": "ask", "edit": "ask"}}
`, schema, api.URL+"/v1")
}

// familyOffline sets the variables that keep an OpenCode-family CLI off
// the network (PREFIX_DISABLE_…), and dumps its logs
// (~/.local/share/APP/log) for a failing test.
func (h *Harness) familyOffline(prefix, app string) {
	for _, k := range []string{"MODELS_FETCH", "AUTOUPDATE", "SHARE", "LSP_DOWNLOAD", "CLAUDE_CODE"} {
		h.Setenv(prefix+"_DISABLE_"+k, "1")
	}
	h.Dump(app+" log", func() string {
		files, _ := filepath.Glob(filepath.Join(h.Home, ".local", "share", app, "log", "*.log"))
		s := ""
		for _, f := range files {
			s += "--- " + f + "\n" + tailFile(f, 60)
		}
		return s
	})
}
