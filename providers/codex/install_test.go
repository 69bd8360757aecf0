package codex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/providers/codex/codexhook"
	"github.com/agwatch/ag/providers/provider"
)

type home struct {
	t    *testing.T
	dir  string
	ie   provider.InstallEnv
	hook string
}

func newHome(t *testing.T) *home {
	dir := t.TempDir()
	h := &home{t: t, dir: dir, hook: "/opt/ag bin/ag-hook"}
	env := map[string]string{"HOME": filepath.Join(dir, "home"), "CODEX_HOME": filepath.Join(dir, "codex")}
	h.ie = provider.InstallEnv{Env: func(k string) string { return env[k] }, Hook: h.hook}
	return h
}

func (h *home) write(name, data string) {
	h.t.Helper()
	p := filepath.Join(h.dir, "codex", name)
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *home) read(name string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, "codex", name))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

const userHooks = `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {"type": "command", "command": "/usr/local/bin/say-done", "timeout": 5}
        ]
      }
    ]
  }
}
`

func TestInstallCycle(t *testing.T) {
	h := newHome(t)
	p := New()
	h.write("config.toml", realConfig)
	h.write("hooks.json", userHooks)

	// Dry run: says what it would do, writes nothing.
	dry := h.ie
	dry.DryRun = true
	res, err := p.Install(dry)
	if err != nil || !res.Changed {
		t.Fatalf("dry install: %+v %v", res, err)
	}
	if h.read("config.toml") != realConfig || h.read("hooks.json") != userHooks {
		t.Fatal("dry run wrote")
	}

	res, err = p.Install(h.ie)
	if err != nil {
		t.Fatal(err)
	}
	acts := strings.Join(res.Actions, "\n")
	for _, want := range []string{"+ SessionStart: '/opt/ag bin/ag-hook' codex", "+ PermissionRequest:", "[features] hooks = true", "/hooks"} {
		if !strings.Contains(acts, want) {
			t.Errorf("actions lack %q:\n%s", want, acts)
		}
	}
	// config.toml: byte-identical plus the flag; backup of the original.
	if got := h.read("config.toml"); got != realConfig+"\n[features]\nhooks = true\n" {
		t.Errorf("config.toml:\n%s", got)
	}
	if h.read("config.toml.ag-backup") != realConfig {
		t.Error("no backup of config.toml")
	}
	// hooks.json: the user's Stop handler first, ours after, all events.
	var hf struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(h.read("hooks.json")), &hf); err != nil {
		t.Fatal(err)
	}
	if len(hf.Hooks) != len(codexhook.Hooks) || hf.Hooks["Stop"][0].Hooks[0].Command != "/usr/local/bin/say-done" ||
		hf.Hooks["Stop"][1].Hooks[0].Command != "'/opt/ag bin/ag-hook' codex" {
		t.Errorf("hooks.json: %s", h.read("hooks.json"))
	}

	// Status: installed, but Codex runs none of it yet: untrusted, with
	// what to do.
	st, err := p.Status(h.ie)
	if err != nil || st.State != provider.Untrusted || st.Hint != TrustHow {
		t.Fatalf("status %+v %v", st, err)
	}
	if len(st.Reasons) != 1 || !strings.Contains(st.Reasons[0], "Codex runs none of ag's 11 hooks until you trust them") {
		t.Errorf("reasons %q", st.Reasons)
	}
	trust, _ := HookTrust(h.ie.Env)
	if len(trust) != 11 || trust[5].Event != "Stop" ||
		trust[5].Key != filepath.Join(h.dir, "codex", "hooks.json")+":stop:1:0" {
		t.Errorf("trust keys: %+v", trust)
	}

	// The user trusts every handler in /hooks: Codex writes hooks.state.
	cfg := h.read("config.toml")
	for i, ht := range trust {
		if i == 0 {
			continue // one left untrusted
		}
		cfg += "\n[hooks.state.\"" + ht.Key + "\"]\ntrusted_hash = \"sha256:abc\"\n"
	}
	h.write("config.toml", cfg)
	st, _ = p.Status(h.ie)
	if st.State != provider.Untrusted || len(st.Reasons) != 1 || !strings.Contains(st.Reasons[0], "Codex skips 1 of ag's 11 hooks") {
		t.Errorf("one untrusted: %+v", st)
	}
	h.write("config.toml", cfg+"\n[hooks.state.\""+trust[0].Key+"\"]\ntrusted_hash = \"sha256:abc\"\n")
	st, _ = p.Status(h.ie)
	if st.State != provider.Installed || len(st.Reasons) != 0 {
		t.Errorf("trusted status %+v", st)
	}

	// Again: nothing to do.
	res, err = p.Install(h.ie)
	if err != nil || res.Changed || len(res.Actions) != 0 {
		t.Errorf("second install: %+v %v", res, err)
	}

	// Flag turned off by hand: needs repair.
	h.write("config.toml", strings.Replace(h.read("config.toml"), "hooks = true", "hooks = false", 1))
	st, _ = p.Status(h.ie)
	if st.State != provider.NeedsRepair || !strings.Contains(strings.Join(st.Reasons, "|"), "[features] hooks is off") {
		t.Errorf("flag off status %+v", st)
	}

	// Uninstall: our handlers go, the user's stay, the flag stays.
	res, err = p.Uninstall(h.ie)
	if err != nil || !res.Changed {
		t.Fatalf("uninstall %+v %v", res, err)
	}
	if got := h.read("hooks.json"); strings.Contains(got, "ag-hook") || !strings.Contains(got, "say-done") {
		t.Errorf("after uninstall: %s", got)
	}
	if !strings.Contains(h.read("config.toml"), "hooks = false") {
		t.Error("uninstall touched the flag")
	}
	if st, _ := p.Status(h.ie); st.State != provider.NotInstalled {
		t.Errorf("status after uninstall %+v", st)
	}
}

func TestInstallFresh(t *testing.T) {
	h := newHome(t)
	if _, err := New().Install(h.ie); err != nil {
		t.Fatal(err)
	}
	if got := h.read("config.toml"); got != "[features]\nhooks = true\n" {
		t.Errorf("config.toml %q", got)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "codex", "config.toml.ag-backup")); err == nil {
		t.Error("backup of a file that did not exist")
	}
	fi, _ := os.Stat(filepath.Join(h.dir, "codex", "config.toml"))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
}

func TestInstallRefusesBadConfig(t *testing.T) {
	h := newHome(t)
	h.write("config.toml", "model = \"x\"\n[features\n")
	_, err := New().Install(h.ie)
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "codex", "hooks.json")); err == nil {
		t.Error("hooks.json written although config.toml was refused")
	}
	if h.read("config.toml") != "model = \"x\"\n[features\n" {
		t.Error("bad config rewritten")
	}
}

// A hooks.json ag cannot parse stops the install before config.toml is
// touched: both files are one transaction.
func TestInstallRefusesBadHooksFile(t *testing.T) {
	h := newHome(t)
	const cfg = "# mine\n[features]\ncodex_hooks = false # off for now\n"
	h.write("config.toml", cfg)
	h.write("hooks.json", `{"hooks": {"Stop": [`)
	_, err := New().Install(h.ie)
	if err == nil || !strings.Contains(err.Error(), "hooks.json") {
		t.Fatalf("err = %v", err)
	}
	if got := h.read("config.toml"); got != cfg {
		t.Errorf("config.toml changed although hooks.json was refused:\n%s", got)
	}
	for _, name := range []string{"config.toml.ag-backup", "hooks.json.ag-backup"} {
		if _, err := os.Stat(filepath.Join(h.dir, "codex", name)); err == nil {
			t.Errorf("%s written by a refused install", name)
		}
	}
}

func TestInstallKeepsSymlink(t *testing.T) {
	h := newHome(t)
	real := filepath.Join(h.dir, "dotfiles", "config.toml")
	os.MkdirAll(filepath.Dir(real), 0o700)
	os.WriteFile(real, []byte("# mine\nmodel = \"m\"\n"), 0o644)
	os.MkdirAll(filepath.Join(h.dir, "codex"), 0o700)
	link := filepath.Join(h.dir, "codex", "config.toml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := New().Install(h.ie); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("symlink replaced by a file")
	}
	if b, _ := os.ReadFile(real); string(b) != "# mine\nmodel = \"m\"\n\n[features]\nhooks = true\n" {
		t.Errorf("target %q", b)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"PreToolUse": "pre_tool_use", "Stop": "stop", "SessionStart": "session_start", "PermissionRequest": "permission_request"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q", in, got)
		}
	}
}

// TestInstallTurnsFlagOn: a flag the user turned off is turned on in place,
// keeping its name and comment, and install says so.
func TestInstallTurnsFlagOn(t *testing.T) {
	h := newHome(t)
	h.write("config.toml", "model = \"o3\"\n\n[features]\ncodex_hooks = false # off for now\n")
	res, err := New().Install(h.ie)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.read("config.toml"); got != "model = \"o3\"\n\n[features]\ncodex_hooks = true # off for now\n" {
		t.Errorf("config.toml:\n%s", got)
	}
	path := filepath.Join(h.dir, "codex", "config.toml")
	want := "! " + path + `:4: you had turned codex_hooks off ("off for now"); it is on now, so Codex runs your own hooks again too`
	if !strings.Contains(strings.Join(res.Actions, "\n"), want) {
		t.Errorf("actions:\n%s\nwant %s", strings.Join(res.Actions, "\n"), want)
	}
}
