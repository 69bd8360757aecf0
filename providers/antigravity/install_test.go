package antigravity

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/providers/provider"
)

func env(home string) provider.Env {
	return func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
}

const theirs = `{
  "ccmux": {
    "PreInvocation": [{"type": "command", "command": "/home/u/.gemini/config/hooks/ccmux-preinvocation.sh"}],
    "Stop": [{"type": "command", "command": "/home/u/.gemini/config/hooks/ccmux-stop.sh"}]
  },
  "guard": {
    "PreToolUse": [{"type": "command", "command": "/usr/local/bin/guard --json", "timeout": 5}]
  }
}
`

func TestInstall(t *testing.T) {
	home := t.TempDir()
	p := New()
	path := p.ConfigPath(env(home))
	if path != filepath.Join(home, ".gemini", "config", "hooks.json") {
		t.Fatal(path)
	}
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(theirs), 0o600)
	ie := provider.InstallEnv{Env: env(home), Hook: "/opt/ag/bin/ag-hook"}
	if st, _ := p.Status(ie); st.State != provider.NotInstalled {
		t.Errorf("before: %v", st)
	}
	res, err := p.Install(ie)
	if err != nil || !res.Changed {
		t.Fatalf("install %+v %v", res, err)
	}
	b, _ := os.ReadFile(path)
	s := string(b)
	if !strings.HasPrefix(s, strings.TrimSuffix(theirs, "\n}\n")) {
		t.Errorf("the other entries moved:\n%s", s)
	}
	for _, want := range []string{`"ag": {`, `"PreInvocation": [`, `"PostInvocation": [`, `"Stop": [`, `"'/opt/ag/bin/ag-hook' antigravity"`, `"timeout": 10`} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s:\n%s", want, s)
		}
	}
	if strings.Count(s, "PreToolUse") != 1 {
		t.Error("ag registered PreToolUse")
	}
	if st, err := p.Status(ie); err != nil || st.State != provider.Installed {
		t.Errorf("status %+v %v", st, err)
	}
	if res, _ := p.Install(ie); res.Changed {
		t.Error("a second install changed the file")
	}
	// A moved ag-hook: ours, stale.
	st, _ := p.Status(provider.InstallEnv{Env: env(home), Hook: "/new/ag-hook"})
	if st.State != provider.NeedsRepair || !strings.Contains(strings.Join(st.Reasons, ";"), "runs '/opt/ag/bin/ag-hook' antigravity") {
		t.Errorf("stale path: %+v", st)
	}
	if _, err := p.Uninstall(ie); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != theirs {
		t.Errorf("uninstall left:\n%s", b)
	}
}

func TestInstallNewFileAndRefusals(t *testing.T) {
	home := t.TempDir()
	p := New()
	ie := provider.InstallEnv{Env: env(home), Hook: "/opt/ag/bin/ag-hook"}
	if _, err := p.Install(ie); err != nil {
		t.Fatal(err)
	}
	if st, _ := p.Status(ie); st.State != provider.Installed {
		t.Errorf("new file: %+v", st)
	}
	path := p.ConfigPath(env(home))
	// An "ag" entry that is someone else's is left alone.
	mine := `{"ag": {"Stop": [{"type": "command", "command": "my-script"}]}}`
	os.WriteFile(path, []byte(mine), 0o600)
	if _, err := p.Install(ie); err == nil || !strings.Contains(err.Error(), "not ag's") {
		t.Errorf("install over a foreign ag entry: %v", err)
	}
	if _, err := p.Uninstall(ie); err == nil {
		t.Error("uninstall of a foreign ag entry")
	}
	if b, _ := os.ReadFile(path); string(b) != mine {
		t.Error("touched")
	}
	// Ours with PreToolUse: repair says why, install takes it out.
	os.WriteFile(path, []byte(`{"ag": {"PreToolUse": [{"type": "command", "command": "'/opt/ag/bin/ag-hook' antigravity"}]}}`), 0o600)
	st, _ := p.Status(ie)
	if st.State != provider.NeedsRepair || !strings.Contains(strings.Join(st.Reasons, ";"), "PreToolUse: registered") {
		t.Errorf("%+v", st)
	}
	if _, err := p.Install(ie); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "PreToolUse") {
		t.Errorf("PreToolUse kept:\n%s", b)
	}
	os.WriteFile(path, []byte(`{"ag": `), 0o600)
	if _, err := p.Install(ie); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("broken file: %v", err)
	}
}
