package claude

import (
	"os"
	"strings"
	"testing"

	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/internal/installtest"
	"github.com/agwatch/ag/providers/provider"
)

// A settings.json with the user's own statusLine, as Claude Code's
// /statusline writes it (2-space indent), and other keys around it.
const userSettings = `{
  "model": "opus",
  "statusLine": {
    "type": "command",
    "command": "bash -c 'printf \"%s | %s\" \"$(jq -r .model.display_name)\" \"$PWD\"' | sed \"s/ /\\t/\"",
    "padding": 0,
    "refreshInterval": 5
  },
  "permissions": {
    "allow": [
      "Bash(go test:*)"
    ]
  }
}
`

const userCommand = `bash -c 'printf "%s | %s" "$(jq -r .model.display_name)" "$PWD"' | sed "s/ /\t/"`

func slEnv(t *testing.T, settings string) (provider.InstallEnv, string) {
	env, path := installtest.HomeWith(t, settings, ".claude/settings.json")
	return provider.InstallEnv{Env: env, Hook: "/opt/ag tools/ag-hook"}, path
}

func readFile(t *testing.T, path string) string { return installtest.Read(t, path) }

func TestStatusLineInstallWrapsAndRestores(t *testing.T) {
	p := New()
	ie, path := slEnv(t, userSettings)
	if st, err := p.StatusLineStatus(ie); err != nil || st.State != provider.NotInstalled || st.Reasons[0] != "runs "+userCommand {
		t.Fatalf("before: %+v %v", st, err)
	}

	dry := ie
	dry.DryRun = true
	if res, err := p.InstallStatusLine(dry); err != nil || !res.Changed || readFile(t, path) != userSettings {
		t.Fatalf("dry run: %+v %v, or the file changed", res, err)
	}

	res, err := p.InstallStatusLine(ie)
	if err != nil || !res.Changed || res.Backup != path+".ag-backup" {
		t.Fatalf("install: %+v %v", res, err)
	}
	got := readFile(t, path)
	wantCmd := `'/opt/ag tools/ag-hook' statusline --then '` + strings.ReplaceAll(userCommand, "'", `'\''`) + `'`
	want := strings.Replace(userSettings, `"command": "bash -c 'printf \"%s | %s\" \"$(jq -r .model.display_name)\" \"$PWD\"' | sed \"s/ /\\t/\""`,
		`"command": `+string(hookjson.String(wantCmd)), 1)
	if got != want {
		t.Errorf("installed:\n%s\nwant:\n%s", got, want)
	}
	if readFile(t, path+".ag-backup") != userSettings {
		t.Error("backup is not the file as it was")
	}
	st, err := p.StatusLineStatus(ie)
	if err != nil || st.State != provider.Installed || strings.Join(st.Reasons, ";") != "then "+userCommand {
		t.Errorf("status: %+v %v", st, err)
	}

	// Twice: nothing changes, nothing nests.
	if res, err := p.InstallStatusLine(ie); err != nil || res.Changed || readFile(t, path) != want {
		t.Errorf("second install: %+v %v", res, err)
	}
	// From another ag-hook path: the path is repaired, the old command kept once.
	other := ie
	other.Hook = "/usr/local/bin/ag-hook"
	if st, _ := p.StatusLineStatus(other); st.State != provider.NeedsRepair || !strings.Contains(st.Reasons[0], "(missing), want /usr/local/bin/ag-hook") {
		t.Errorf("status from another path: %+v", st)
	}
	if res, err := p.InstallStatusLine(other); err != nil || !res.Changed {
		t.Fatalf("repair: %+v %v", res, err)
	}
	if got := readFile(t, path); strings.Count(got, "--then") != 1 || !strings.Contains(got, `"command": "/usr/local/bin/ag-hook statusline --then `) &&
		!strings.Contains(got, `"command": "'/usr/local/bin/ag-hook' statusline --then `) {
		t.Errorf("repaired:\n%s", got)
	}

	// Uninstall gives the file back as it was.
	res, err = p.UninstallStatusLine(other)
	if err != nil || !res.Changed {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if got := readFile(t, path); got != userSettings {
		t.Errorf("uninstalled:\n%s\nwant:\n%s", got, userSettings)
	}
	if res, err := p.UninstallStatusLine(other); err != nil || res.Changed {
		t.Errorf("second uninstall: %+v %v", res, err)
	}
}

func TestStatusLineInstallFresh(t *testing.T) {
	p := New()
	for _, tc := range []struct{ name, settings, installed, uninstalled string }{
		{"no file", "", "{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"'/opt/ag tools/ag-hook' statusline\"\n  }\n}\n", "{}\n"},
		{"other keys", "{\n  \"model\": \"opus\"\n}\n",
			"{\n  \"model\": \"opus\",\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"'/opt/ag tools/ag-hook' statusline\"\n  }\n}\n",
			"{\n  \"model\": \"opus\"\n}\n"},
		{"null statusLine, one line", `{"statusLine":null,"model":"opus"}`,
			`{"statusLine":{"type":"command","command":"'/opt/ag tools/ag-hook' statusline"},"model":"opus"}`, `{"model":"opus"}`},
		{"hand-edited flags kept", "{\"statusLine\": {\"type\": \"command\", \"command\": \"ag-hook statusline --format '{{.Model}}' --then-timeout 2s\"}}\n",
			"{\"statusLine\": {\"type\":\"command\",\"command\":\"'/opt/ag tools/ag-hook' statusline --format '{{.Model}}' --then-timeout 2s\"}}\n", "{}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ie, path := slEnv(t, tc.settings)
			if _, err := p.InstallStatusLine(ie); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, path); got != tc.installed {
				t.Errorf("installed:\n%s\nwant:\n%s", got, tc.installed)
			}
			if res, _ := p.InstallStatusLine(ie); res.Changed {
				t.Error("second install changed the file")
			}
			if _, err := p.UninstallStatusLine(ie); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, path); got != tc.uninstalled {
				t.Errorf("uninstalled:\n%s\nwant:\n%s", got, tc.uninstalled)
			}
		})
	}
}

func TestStatusLineRefuses(t *testing.T) {
	p := New()
	for _, s := range []string{`{"statusLine": "echo hi"}`, `{"statusLine": {"type": "static", "text": "x"}}`,
		`{"statusLine": {"type": "command", "command": 7}}`, `{"statusLine": {`} {
		ie, path := slEnv(t, s)
		if _, err := p.InstallStatusLine(ie); err == nil || !strings.Contains(err.Error(), "settings.json") {
			t.Errorf("%s: install: %v", s, err)
		}
		if readFile(t, path) != s {
			t.Errorf("%s: changed", s)
		}
		if _, err := os.Stat(path + ".ag-backup"); err == nil {
			t.Errorf("%s: backup written", s)
		}
	}
}
