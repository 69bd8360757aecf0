package cline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agwatch/ag/providers/cline/clinehook"
	"github.com/agwatch/ag/providers/provider"
)

// snapshot is every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			out[strings.TrimPrefix(p, dir)] = string(b)
		}
		return nil
	})
	return out
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestInstallLifecycle: install writes one script per event beside the
// user's own hook of an event (which runs too, untouched); again changes
// nothing; status reads it; a missing script needs repair; the scripts
// hand the payload to ag-hook with the event; uninstall leaves the
// directory as it was, byte for byte.
func TestInstallLifecycle(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home}[k] }
	hooks := HooksDir(env)
	os.MkdirAll(hooks, 0o700)
	mine := "#!/bin/sh\necho '{\"cancel\":false}'\n"
	os.WriteFile(filepath.Join(hooks, "PreToolUse"), []byte(mine), 0o755)
	os.WriteFile(filepath.Join(hooks, "notes.txt"), []byte("my notes\n"), 0o644)
	before := snapshot(t, home)

	// The ag-hook the scripts run: one that writes what it got.
	bin := filepath.Join(home, "opt", "ag tools")
	os.MkdirAll(bin, 0o700)
	got := filepath.Join(home, "got")
	agHook := filepath.Join(bin, "ag-hook")
	os.WriteFile(agHook, []byte("#!/bin/sh\n{ echo \"$*\"; cat; } > '"+got+"'\n"), 0o755)
	ie := provider.InstallEnv{Env: env, Hook: agHook, Version: "v1.2.0"}

	p := New()
	if st, _ := p.Status(ie); st.State != provider.NotInstalled {
		t.Errorf("before: %+v", st)
	}
	res, err := p.Install(ie)
	if err != nil || !res.Changed {
		t.Fatalf("install: %+v %v", res, err)
	}
	acts := strings.Join(res.Actions, "\n")
	if !strings.Contains(acts, "+ PreToolUse.sh") || !strings.Contains(acts, "your own hooks run beside ag's: PreToolUse") ||
		!strings.Contains(acts, "auto-approve is on") {
		t.Errorf("install said:\n%s", acts)
	}
	for _, ev := range clinehook.Hooks {
		f := filepath.Join(hooks, ev+".sh")
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		if lines[0] != "#!/bin/sh" || !strings.HasPrefix(lines[1], "# ag-cline-hook v1.2.0 — reports Cline") ||
			!strings.Contains(string(b), "\nAG_HOOK='"+agHook+"'\n") || !strings.Contains(string(b), "\nEVENT='"+ev+"'\n") {
			t.Errorf("%s:\n%s", f, b)
		}
		if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v", f, fi.Mode().Perm())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(hooks, "PreToolUse")); string(b) != mine {
		t.Error("the user's own PreToolUse changed")
	}
	if out := runHook(t, filepath.Join(hooks, "PreToolUse.sh"), `{"hookName":"tool_call"}`); out != "" {
		t.Errorf("the hook printed %q: Cline reads it as orders", out)
	}
	if b, _ := os.ReadFile(got); string(b) != "cline PreToolUse\n{\"hookName\":\"tool_call\"}" {
		t.Errorf("ag-hook got %q", b)
	}
	if res, _ := p.Install(ie); res.Changed {
		t.Error("a second install changed something")
	}
	if st, _ := p.Status(ie); st.State != provider.Installed {
		t.Errorf("status: %+v", st)
	}

	// Without its ag-hook a script does nothing, quietly.
	os.Rename(agHook, agHook+".gone")
	if out := runHook(t, filepath.Join(hooks, "TaskStart.sh"), `{}`); out != "" {
		t.Errorf("without ag-hook: %q", out)
	}
	os.Rename(agHook+".gone", agHook)

	os.Remove(filepath.Join(hooks, "PostToolUse.sh"))
	if st, _ := p.Status(ie); st.State != provider.NeedsRepair || !slices.Contains(st.Reasons, "PostToolUse.sh: missing") {
		t.Errorf("one missing: %+v", st)
	}
	if res, err := p.Install(ie); err != nil || len(res.Actions) == 0 || res.Actions[0] != "+ PostToolUse.sh" {
		t.Errorf("repair: %+v %v", res, err)
	}
	other := ie
	other.Version = "v1.3.0"
	if st, _ := p.Status(other); st.State != provider.NeedsRepair || !strings.Contains(strings.Join(st.Reasons, "\n"), "outdated") {
		t.Errorf("another ag: %+v", st)
	}

	if res, err := p.Uninstall(ie); err != nil || !res.Changed {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	os.RemoveAll(filepath.Join(home, "opt"))
	os.Remove(got)
	if after := snapshot(t, home); !sameFiles(after, before) {
		t.Errorf("after uninstall:\n%v\nbefore:\n%v", after, before)
	}
	if st, _ := p.Status(ie); st.State != provider.NotInstalled || len(st.Reasons) != 0 {
		t.Errorf("after uninstall: %+v", st)
	}
}

// TestInstallRefusesForeign: a file of ag's name that is not ag's stops
// the whole install (no file written) and the uninstall of it; status
// says so.
func TestInstallRefusesForeign(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home}[k] }
	hooks := HooksDir(env)
	os.MkdirAll(hooks, 0o700)
	theirs := filepath.Join(hooks, "TaskComplete.sh")
	os.WriteFile(theirs, []byte("#!/bin/bash\nnotify-send done\n"), 0o755)
	before := snapshot(t, home)
	ie := provider.InstallEnv{Env: env, Hook: "/opt/ag/ag-hook"}
	p := New()
	_, err := p.Install(ie)
	if err == nil || !strings.Contains(err.Error(), theirs) || !strings.Contains(err.Error(), "not ag's") {
		t.Fatalf("install over a foreign file: %v", err)
	}
	if after := snapshot(t, home); !sameFiles(after, before) {
		t.Errorf("a refused install wrote files: %v", after)
	}
	if st, _ := p.Status(ie); st.State != provider.NotInstalled || !strings.Contains(strings.Join(st.Reasons, "\n"), "TaskComplete.sh: a file of the same name is not ag's") {
		t.Errorf("status: %+v", st)
	}
	if _, err := p.Uninstall(ie); err == nil {
		t.Error("uninstall of a foreign file: no error")
	}
	if b, _ := os.ReadFile(theirs); string(b) != "#!/bin/bash\nnotify-send done\n" {
		t.Error("the foreign file changed")
	}
}

// TestAutoApproveNote: the install says calls never wait while Cline
// approves them itself, and not once it does not.
func TestAutoApproveNote(t *testing.T) {
	for settings, says := range map[string]bool{"": true, `{"toolAutoApprove": true}`: true, `{"toolAutoApprove":false}`: false, `{"telemetryOptOut":false}`: true} {
		home := t.TempDir()
		env := func(k string) string { return map[string]string{"HOME": home}[k] }
		if settings != "" {
			os.MkdirAll(filepath.Dir(SettingsPath(env)), 0o700)
			os.WriteFile(SettingsPath(env), []byte(settings), 0o600)
		}
		res, err := New().Install(provider.InstallEnv{Env: env, Hook: "/opt/ag-hook"})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(strings.Join(res.Actions, "\n"), "auto-approve is on"); got != says {
			t.Errorf("settings %q: note %v, want %v", settings, got, says)
		}
	}
}
