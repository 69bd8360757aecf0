package copilot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/providers/copilot/copilothook"
	"github.com/agwatch/ag/providers/provider"
)

// settings is a user settings.json as Copilot 1.0.102 writes it (`copilot
// config banner never`), with a hook of the user's own.
const settings = `{
  "hooks": {
    "preToolUse": [
      {
        "type": "command",
        "bash": "./audit.sh",
        "timeoutSec": 30
      }
    ]
  },
  "banner": "never"
}
`

func env(m map[string]string) provider.Env { return func(k string) string { return m[k] } }

func TestInstallHonoursCopilotHome(t *testing.T) {
	home, ch := t.TempDir(), t.TempDir()
	p := New()
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": home}, filepath.Join(home, ".copilot", "settings.json")},
		{map[string]string{"HOME": home, "COPILOT_HOME": ch}, filepath.Join(ch, "settings.json")},
	} {
		if got := p.ConfigPath(env(tc.env)); got != tc.want {
			t.Errorf("ConfigPath %v = %s, want %s", tc.env, got, tc.want)
		}
		if got := p.TranscriptRoots(env(tc.env))[0].Dir; got != filepath.Join(filepath.Dir(tc.want), "session-state") {
			t.Errorf("sessions %v = %s", tc.env, got)
		}
	}
}

func TestInstall(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte(settings), 0o600)
	p := New()
	ie := provider.InstallEnv{Env: env(map[string]string{"COPILOT_HOME": dir}), Hook: "/opt/my tools/ag-hook"}
	res, err := p.Install(ie)
	if err != nil || !res.Changed {
		t.Fatalf("install: %+v %v", res, err)
	}
	if last := res.Actions[len(res.Actions)-1]; !strings.HasPrefix(last, "! ") {
		t.Errorf("no restart note: %q", res.Actions)
	}
	var got struct {
		Banner string `json:"banner"`
		Hooks  map[string][]struct {
			Type       string `json:"type"`
			Bash       string `json:"bash"`
			TimeoutSec int    `json:"timeoutSec"`
		} `json:"hooks"`
	}
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Banner != "never" || len(got.Hooks) != len(copilothook.Hooks) {
		t.Fatalf("settings after install:\n%s", data)
	}
	for _, ev := range copilothook.Hooks {
		hs := got.Hooks[ev]
		last := hs[len(hs)-1]
		if last.Type != "command" || last.Bash != "'/opt/my tools/ag-hook' copilot "+ev || last.TimeoutSec != HookTimeout {
			t.Errorf("%s: %+v", ev, hs)
		}
	}
	if hs := got.Hooks["preToolUse"]; len(hs) != 2 || hs[0].Bash != "./audit.sh" {
		t.Errorf("the user's preToolUse hook: %+v", hs)
	}
	if _, ok := got.Hooks[copilothook.HookPermissionRequest]; ok {
		t.Error("installed the deciding permissionRequest hook")
	}
	if st, err := p.Status(ie); err != nil || st.State != provider.Installed {
		t.Errorf("status %+v %v", st, err)
	}
	// Another ag-hook path is the same install, stale.
	ie2 := ie
	ie2.Hook = "/usr/local/bin/ag-hook"
	if st, _ := p.Status(ie2); st.State != provider.NeedsRepair || !strings.Contains(strings.Join(st.Reasons, ";"), "want '/usr/local/bin/ag-hook' copilot") {
		t.Errorf("status under another path: %+v", st)
	}
	if _, err := p.Uninstall(ie); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != settings {
		t.Errorf("uninstall left:\n%s\nwant the file as it was:\n%s", data, settings)
	}
}
