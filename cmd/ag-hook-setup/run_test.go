package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

type result struct {
	code           int
	stdout, stderr string
}

// try runs ag-hook-setup in-process with env (nothing else of the real
// one), as the ag-hook at /opt/ag/bin/ag-hook.
func try(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	c := newCmd(&out, &errb)
	c.env = func(k string) string { return env[k] }
	c.self = func() (string, error) { return "/opt/ag/bin/ag-hook", nil }
	code := c.main(args)
	return result{code, out.String(), errb.String()}
}

func TestHelpAndUsage(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{[]string{"--help"}, 0, []string{"Usage:", "claude", "install", "uninstall", "status", "AG_DEBUG"}, ""},
		{[]string{"--man"}, 0, []string{".TH ag-hook", "install", "dry-run"}, ""},
		{[]string{"install", "--help"}, 0, []string{"--agent", "--dry-run", "--hook"}, ""},
		{[]string{"claude", "--help"}, 0, []string{"--print"}, ""},
		{[]string{"--version"}, 0, []string{"ag-hook "}, ""},
		{nil, 2, nil, "ag-hook: no command"},
		{[]string{"bogus"}, 2, nil, `ag-hook: unknown command "bogus"`},
		{[]string{"install"}, 2, nil, "ag-hook: install: --agent is required"},
		{[]string{"install", "--agent", "nope"}, 2, nil, "ag-hook: --agent nope: no such agent"},
		{[]string{"status", "extra"}, 2, nil, `ag-hook: unexpected argument "extra"`},
	}
	for _, tc := range tests {
		r := try(t, map[string]string{"HOME": t.TempDir()}, tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stderr, tc.stderr) || (tc.stderr == "" && r.stderr != "") {
			t.Errorf("ag-hook %q: code %d stderr %q; want %d %q", tc.args, r.code, r.stderr, tc.code, tc.stderr)
		}
		for _, s := range tc.stdout {
			if !strings.Contains(r.stdout, s) {
				t.Errorf("ag-hook %q: stdout lacks %q", tc.args, s)
			}
		}
	}
}

// TestInstallCycle drives install/status/uninstall through the command,
// exit codes included.
func TestInstallCycle(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	hooks := filepath.Join(home, ".codex", "hooks.json")
	orig := "{\n  \"model\": \"opus\"\n}\n"
	os.WriteFile(settings, []byte(orig), 0o600)

	steps := []struct {
		args []string
		code int
		out  string // a line stdout must have
	}{
		{[]string{"status"}, 1, "claude: Not installed (" + settings + ")"},
		{[]string{"install", "--agent", "claude", "--dry-run"}, 0, "claude: hooks would be installed in " + settings + " (14 added)"},
		{[]string{"status", "--agent", "claude"}, 1, "claude: Not installed"},
		{[]string{"install", "--agent", "claude"}, 0, "  + Stop: '/opt/ag/bin/ag-hook' claude"},
		{[]string{"status"}, 0, "claude: Installed (" + settings + ")"},
		{[]string{"install", "--agent", "claude"}, 0, "claude: already installed in " + settings},
		{[]string{"status", "--hook", "/elsewhere/ag-hook"}, 1, "claude: Needs repair (" + settings + "): SessionStart: runs '/opt/ag/bin/ag-hook' claude (missing), want '/elsewhere/ag-hook' claude;"},
		{[]string{"uninstall", "--agent", "claude"}, 0, "claude: hooks removed from " + settings + " (14 removed); the original from before ag is still in " + settings + ".ag-backup"},
		{[]string{"uninstall", "--agent", "claude"}, 0, "claude: no ag hooks in " + settings},
		{[]string{"status"}, 1, "claude: Not installed"},
		// A second agent: status without --agent lists both; one never
		// installed for is no fault, one in need of repair is.
		{[]string{"install", "--agent", "claude"}, 0, "claude: hooks installed in"},
		{[]string{"status"}, 0, "codex: Not installed (" + hooks + ")"},
		{[]string{"status", "--agent", "codex"}, 1, "codex: Not installed"},
		{[]string{"install", "--agent", "codex"}, 0, "codex: hooks installed in " + hooks},
		{[]string{"status"}, 0, "codex: Installed (" + hooks + "): untrusted: 11 of 11"},
		{[]string{"status", "--hook", "/elsewhere/ag-hook", "--agent", "codex"}, 1, "codex: Needs repair"},
		{[]string{"uninstall", "--agent", "claude"}, 0, "claude: hooks removed from"},
		{[]string{"status"}, 0, "claude: Not installed"},
		{[]string{"uninstall", "--agent", "codex"}, 0, "codex: hooks removed from"},
		{[]string{"status"}, 1, "codex: Not installed"},
	}
	for _, s := range steps {
		r := try(t, env, s.args...)
		if r.code != s.code || r.stderr != "" || !strings.Contains(r.stdout, s.out+"\n") && !strings.Contains(r.stdout, s.out) {
			t.Fatalf("ag-hook %q: %+v\nwant code %d and %q", s.args, r, s.code, s.out)
		}
	}
	if b, _ := os.ReadFile(settings); string(b) != orig {
		t.Errorf("after the round trip:\n%s\nwant\n%s", b, orig)
	}

	// CLAUDE_CONFIG_DIR wins over HOME.
	cfg := t.TempDir()
	r := try(t, map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": cfg}, "install", "--agent", "claude")
	if r.code != 0 || !strings.Contains(r.stdout, filepath.Join(cfg, "settings.json")) {
		t.Errorf("CLAUDE_CONFIG_DIR: %+v", r)
	}

	// A file it cannot parse: exit 2, named, untouched.
	bad := "{\"model\": \"opus\",\n"
	os.WriteFile(settings, []byte(bad), 0o600)
	for _, args := range [][]string{{"install", "--agent", "claude"}, {"uninstall", "--agent", "claude"}, {"status"}} {
		r := try(t, env, args...)
		// status goes on to the other agents: only claude's line is missing.
		if r.code != 2 || !strings.Contains(r.stderr, settings) || strings.Contains(r.stdout, "claude:") {
			t.Errorf("ag-hook %q on a broken file: %+v", args, r)
		}
	}
	if b, _ := os.ReadFile(settings); string(b) != bad {
		t.Errorf("broken file touched: %q", b)
	}
}

// TestStatuslineFlags: the statusline options the help lists are the ones
// ag-hook parses by hand (its TestParseStatusline takes each).
func TestStatuslineFlags(t *testing.T) {
	var names []string
	typ := reflect.TypeFor[statuslineFlags]()
	for i := range typ.NumField() {
		names = append(names, typ.Field(i).Tag.Get("long"))
	}
	if want := []string{"then", "then-timeout", "format"}; !slices.Equal(names, want) {
		t.Errorf("statusline options %q; ag-hook parses %q", names, want)
	}
	r := try(t, nil, "statusline", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "--then-timeout") || !strings.Contains(r.stdout, "Template fields") {
		t.Errorf("statusline --help: %+v", r)
	}
	r = try(t, nil, "statusline", "--man")
	if r.code != 0 || !strings.HasPrefix(r.stdout, ".TH ag-hook statusline ") || !strings.Contains(r.stdout, "Template fields") {
		t.Errorf("statusline --man: %+v", r)
	}
	if r := try(t, nil, "claude"); r.code != 2 || !strings.Contains(r.stderr, "run as ag-hook claude") {
		t.Errorf("a hook through ag-hook-setup: %+v", r)
	}
}

// TestHookExe: the path install writes is the ag-hook that ran this, else
// the one beside it.
func TestHookExe(t *testing.T) {
	if p, err := hookExe("/usr/local/bin/ag-hook"); p != "/usr/local/bin/ag-hook" || err != nil {
		t.Errorf("from the environment: %q %v", p, err)
	}
	exe, _ := os.Executable()
	beside := filepath.Join(filepath.Dir(exe), "ag-hook")
	if _, err := os.Stat(beside); err == nil {
		t.Skip(beside, " exists")
	}
	if _, err := hookExe(""); err == nil || !strings.Contains(err.Error(), "--hook") {
		t.Errorf("no ag-hook beside: %v", err)
	}
	os.WriteFile(beside, nil, 0o755)
	defer os.Remove(beside)
	if p, err := hookExe("relative/ag-hook"); p != beside || err != nil {
		t.Errorf("beside: %q %v", p, err)
	}
}
