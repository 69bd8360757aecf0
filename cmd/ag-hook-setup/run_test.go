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
// one), as the ag-hook at $AG_TEST_HOOK (an executable file).
func try(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	c := newCmd(&out, &errb)
	c.env = func(k string) string { return env[k] }
	c.self = func() (string, error) { return env["AG_TEST_HOOK"], nil }
	code := c.main(args)
	return result{code, out.String(), errb.String()}
}

// fakeHook is an executable named ag-hook, for install to write.
func fakeHook(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "bin", "ag-hook")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHelpAndUsage(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{[]string{"--help"}, 0, []string{"Usage:", "claude", "install", "uninstall", "status"}, ""},
		{[]string{"--man"}, 0, []string{`.TH "ag\-hook"`, "install", `dry\-run`, "AG_DEBUG"}, ""},
		// uninstall's help has uninstall's options, not install's
		{[]string{"uninstall", "--help"}, 0, []string{"--agent", "--dry-run", "--verbose"}, ""},
		{[]string{"install", "--help"}, 0, []string{"--agent", "--dry-run", "--hook"}, ""},
		{[]string{"claude", "--help"}, 0, []string{"--print"}, ""},
		{[]string{"--version"}, 0, []string{"ag-hook "}, ""},
		{nil, 2, nil, "ag-hook: no command"},
		{[]string{"bogus"}, 2, nil, `ag-hook: unknown command "bogus"`},
		{[]string{"install"}, 2, nil, "ag-hook: install: --agent is required"},
		{[]string{"install", "--agent", "nope"}, 2, nil, "ag-hook: --agent nope: no such agent"},
		{[]string{"status", "extra"}, 2, nil, `ag-hook: unexpected argument "extra"`},
	}
	if r := try(t, nil, "uninstall", "--help"); strings.Contains(r.stdout, "--hook") || strings.Contains(r.stdout, "--statusline") || strings.Contains(r.stdout, "--force") {
		t.Errorf("uninstall --help lists install's options:\n%s", r.stdout)
	}
	for _, tc := range tests {
		r := try(t, map[string]string{"HOME": t.TempDir(), "AG_TEST_HOOK": fakeHook(t)}, tc.args...)
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
	hook := fakeHook(t)
	env := map[string]string{"HOME": home, "AG_TEST_HOOK": hook}
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.MkdirAll(filepath.Join(home, ".codex"), 0o700)
	orig := "{\n  \"model\": \"opus\"\n}\n"
	os.WriteFile(settings, []byte(orig), 0o600)
	other := fakeHook(t)

	steps := []struct {
		args []string
		code int
		out  string // a line stdout must have
	}{
		{[]string{"status"}, 1, "claude: not installed (ag-hook install --agent claude adds the hooks to ~/.claude/settings.json)"},
		{[]string{"install", "--agent", "claude", "--dry-run"}, 0, "claude: hooks would be installed in ~/.claude/settings.json (15 hooks added)"},
		{[]string{"status", "--agent", "claude"}, 1, "claude: not installed"},
		{[]string{"install", "--agent", "claude"}, 0, "kept ~/.claude/settings.json.ag-backup: each file as it was before ag first changed it"},
		{[]string{"status"}, 0, "claude: installed in ~/.claude/settings.json (your file before ag: settings.json.ag-backup)"},
		{[]string{"install", "--agent", "claude"}, 0, "claude: already installed in ~/.claude/settings.json"},
		{[]string{"status", "--hook", other}, 1, "claude: needs repair: runs '" + hook + "' claude, want '" + other + "' claude (15 hooks) (ag-hook install --agent claude repairs it)"},
		{[]string{"status", "--hook", other, "-v"}, 1, "  - SessionEnd: runs '" + hook + "' claude, want '" + other + "' claude"},
		{[]string{"uninstall", "--agent", "claude"}, 0, "claude: hooks removed from ~/.claude/settings.json (15 hooks removed)"},
		{[]string{"uninstall", "--agent", "claude"}, 0, "claude: no ag hooks in ~/.claude/settings.json"},
		{[]string{"status"}, 1, "claude: not installed"},
		// A second agent: status without --agent lists both; one never
		// installed for is no fault, one in need of repair is, and one
		// whose hooks the agent will not run yet (Codex: untrusted) is.
		{[]string{"install", "--agent", "claude"}, 0, "claude: hooks installed in"},
		{[]string{"status"}, 0, "codex: not installed"},
		{[]string{"status", "--agent", "codex"}, 1, "codex: not installed"},
		{[]string{"install", "--agent", "codex"}, 0, "codex: hooks installed in ~/.codex/hooks.json (11 hooks added)"},
		{[]string{"status"}, 1, "codex: installed, but Codex runs none of ag's 11 hooks until you trust them: start codex, type /hooks"},
		{[]string{"status", "--hook", other, "--agent", "codex"}, 1, "codex: needs repair"},
		{[]string{"uninstall", "--agent", "claude"}, 0, "claude: hooks removed from"},
		{[]string{"status"}, 1, "claude: not installed"},
		{[]string{"uninstall", "--agent", "codex"}, 0, "codex: hooks removed from"},
		{[]string{"status"}, 1, "codex: not installed"},
	}
	for _, s := range steps {
		r := try(t, env, s.args...)
		if r.code != s.code || r.stderr != "" || !strings.Contains(r.stdout, s.out) {
			t.Fatalf("ag-hook %q: %+v\nwant code %d and %q", s.args, r, s.code, s.out)
		}
	}
	if b, _ := os.ReadFile(settings); string(b) != orig {
		t.Errorf("after the round trip:\n%s\nwant\n%s", b, orig)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex", "hooks.json")); !os.IsNotExist(err) {
		t.Errorf("hooks.json, which ag's install made, is still there after uninstall")
	}

	// CLAUDE_CONFIG_DIR wins over HOME.
	cfg := t.TempDir()
	r := try(t, map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": cfg, "AG_TEST_HOOK": hook}, "install", "--agent", "claude")
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

// TestInstallRefuses: a --hook that cannot run (or is not an ag-hook), and
// an agent that is not on this machine (unless --force), change nothing;
// status says nothing of an agent that is not there.
func TestInstallRefuses(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "AG_TEST_HOOK": fakeHook(t), "PATH": t.TempDir()}
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	notHook := filepath.Join(t.TempDir(), "hook.sh")
	os.WriteFile(notHook, []byte("#!/bin/sh\n"), 0o755)
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"install", "--agent", "claude", "--hook", "/no/such/ag-hook"}, 2,
			"ag-hook: install: --hook /no/such/ag-hook: no such file: the agent would run a command that is not there\n"},
		{[]string{"install", "--agent", "claude", "--hook", notHook}, 2,
			"ag-hook: install: --hook " + notHook + ": not an ag-hook (status and uninstall know ag's hooks by that name)\n"},
		{[]string{"install", "--agent", "codex"}, 1,
			"ag-hook: install: Codex does not seem to be installed here (no ~/.codex, no codex on $PATH); give --force to add its hooks anyway\n"},
		{[]string{"install", "--agent", "claude", "--agent", "codex"}, 1, "ag-hook: install: Codex does not seem"},
	} {
		r := try(t, env, tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stderr, tc.stderr) || r.stdout != "" {
			t.Errorf("ag-hook %q: %+v; want %d %q", tc.args, r, tc.code, tc.stderr)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(home, ".claude")); len(entries) != 0 {
		t.Errorf("a refused install wrote %v", entries)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex")); !os.IsNotExist(err) {
		t.Errorf("a refused install made ~/.codex")
	}
	// Codex on $PATH is enough to count as there; --force installs anyway.
	os.WriteFile(filepath.Join(env["PATH"], "codex"), []byte("#!/bin/sh\n"), 0o755)
	if r := try(t, env, "install", "--agent", "codex", "--dry-run"); r.code != 0 {
		t.Errorf("codex on $PATH: %+v", r)
	}
	os.Remove(filepath.Join(env["PATH"], "codex"))
	if r := try(t, env, "status"); r.code != 1 || strings.Contains(r.stdout, "codex") || !strings.Contains(r.stdout, "claude: not installed") {
		t.Errorf("status names an agent that is not here: %+v", r)
	}
	if r := try(t, env, "status", "-v"); !strings.Contains(r.stdout, "Codex does not seem to be on this machine") {
		t.Errorf("status -v: %+v", r)
	}
	if r := try(t, env, "install", "--agent", "codex", "--force"); r.code != 0 || !strings.Contains(r.stdout, "codex: hooks installed") {
		t.Errorf("--force: %+v", r)
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
	if want := []string{"agent", "then", "then-timeout", "format"}; !slices.Equal(names, want) {
		t.Errorf("statusline options %q; ag-hook parses %q", names, want)
	}
	r := try(t, nil, "statusline", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "--then-timeout") || !strings.Contains(r.stdout, "(fields: --man)") {
		t.Errorf("statusline --help: %+v", r)
	}
	r = try(t, nil, "statusline", "--man")
	if r.code != 0 || !strings.HasPrefix(r.stdout, `.TH "ag\-hook statusline" `) || !strings.Contains(r.stdout, "TEMPLATE FIELDS") {
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
