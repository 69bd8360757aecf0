package qwen

import (
	"strings"
	"testing"

	"github.com/agwatch/ag/providers/internal/installtest"
	"github.com/agwatch/ag/providers/provider"
)

// qwenSettings is a settings.json as Qwen Code's users have it: comments
// (Qwen reads them), a ui object with members of its own.
const qwenSettings = `{
  // the model
  "model": {
    "name": "qwen3-coder-plus"
  },
  "ui": {
    "showStatusInTitle": true,
    "statusLine": {
      "type": "command",
      "command": "~/.qwen/line.sh | head -c 80",
      "padding": 1
    }
  }
}
`

func qwenEnv(t *testing.T, settings string) (provider.InstallEnv, string) {
	env, path := installtest.HomeWith(t, settings, ".qwen/settings.json")
	return provider.InstallEnv{Env: env, Hook: "/opt/ag tools/ag-hook"}, path
}

func read(t *testing.T, path string) string { return installtest.Read(t, path) }

// TestStatusLine: ui.statusLine wrapped and given back byte for byte; the
// comments and members around it kept; a fresh one added and removed.
func TestStatusLine(t *testing.T) {
	p := New()
	for _, tc := range []struct{ name, settings, command, installed string }{
		{"the user's line, wrapped", qwenSettings,
			`'/opt/ag tools/ag-hook' statusline --agent qwen --then '~/.qwen/line.sh | head -c 80'`,
			`      "command": "'/opt/ag tools/ag-hook' statusline --agent qwen --then '~/.qwen/line.sh | head -c 80'",`},
		{"a ui with no line", "{\n  \"ui\": {\n    \"showStatusInTitle\": true\n  }\n}\n",
			`'/opt/ag tools/ag-hook' statusline --agent qwen`,
			"    \"showStatusInTitle\": true,\n    \"statusLine\": {\n      \"type\": \"command\","},
		{"no ui", "{\n  \"model\": {\"name\": \"x\"}\n}\n",
			`'/opt/ag tools/ag-hook' statusline --agent qwen`,
			`"ui": {`},
		{"no file", "", `'/opt/ag tools/ag-hook' statusline --agent qwen`, `"statusLine"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ie, path := qwenEnv(t, tc.settings)
			res, err := p.InstallStatusLine(ie)
			if err != nil || len(res.Actions) != 1 {
				t.Fatalf("install: %+v, %v", res, err)
			}
			got := read(t, path)
			if !strings.Contains(got, tc.installed) || (tc.settings == qwenSettings && !strings.Contains(got, "// the model")) {
				t.Errorf("installed:\n%s\nwant it to hold %s", got, tc.installed)
			}
			st, err := p.StatusLineStatus(ie)
			if err != nil || st.State != provider.Installed {
				t.Errorf("status after install: %+v, %v", st, err)
			}
			if _, err := p.StatusLineStatus(ie); err != nil {
				t.Fatal(err)
			}
			if res, err := p.InstallStatusLine(ie); err != nil || len(res.Actions) != 0 {
				t.Errorf("installed again: %+v, %v; want nothing to do", res, err)
			}
			if _, err := p.UninstallStatusLine(ie); err != nil {
				t.Fatal(err)
			}
			want := tc.settings
			if want == "" {
				want = "{}\n"
			}
			if got := read(t, path); got != want {
				t.Errorf("uninstalled:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestStatusLineRefused: a ui.statusLine that is no command (Qwen's preset
// line) is not replaced: the install fails, the file as it was.
func TestStatusLineRefused(t *testing.T) {
	const preset = "{\n  \"ui\": {\"statusLine\": {\"type\": \"preset\", \"items\": [\"model\"]}}\n}\n"
	ie, path := qwenEnv(t, preset)
	_, err := New().InstallStatusLine(ie)
	if err == nil || !strings.Contains(err.Error(), `ui.statusLine.type is "preset", not "command"`) {
		t.Errorf("install over a preset line: %v", err)
	}
	if got := read(t, path); got != preset {
		t.Errorf("the file changed:\n%s", got)
	}
	st, err := New().StatusLineStatus(ie)
	if err != nil || st.State != provider.NotInstalled || len(st.Reasons) != 1 {
		t.Errorf("status: %+v, %v", st, err)
	}
}
