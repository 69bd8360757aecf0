package auggie

import (
	"os"
	"strings"
	"testing"

	"github.com/agwatch/ag/providers/internal/installtest"
	"github.com/agwatch/ag/providers/provider"
)

// home is a home folder with testdata's file name ("" for none) where
// the agent reads it.
func home(t *testing.T, name string) (provider.Env, string) {
	t.Helper()
	src := ""
	if name != "" {
		src = "testdata/settings/" + name
	}
	return installtest.Home(t, src, ".augment/settings.json")
}

const hookPath = "/opt/ag bin/ag-hook"

// Install adds one handler per event (a matcher on the tool events only,
// the timeout in milliseconds) after the user's own, keeps the rest byte
// for byte, and uninstall gives the file back as it was.
func TestInstallUninstall(t *testing.T) {
	p := New()
	env, path := home(t, "user.json")
	orig, _ := os.ReadFile(path)
	ie := provider.InstallEnv{Env: env, Hook: hookPath}
	if st, err := p.Status(ie); err != nil || st.State != provider.NotInstalled {
		t.Fatalf("status before: %+v %v", st, err)
	}
	res, err := p.Install(ie)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Backup == "" || !strings.Contains(strings.Join(res.Actions, "\n"), "enable_hooks") {
		t.Errorf("install: %+v", res)
	}
	b, _ := os.ReadFile(path)
	s := string(b)
	for _, want := range []string{`"command": "'/opt/ag bin/ag-hook' auggie"`, `"timeout": 10000`, `"/home/me/bin/guard.sh"`,
		`"PromptSubmit"`, `"SessionEnd"`, `"toolPermissions"`} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s in\n%s", want, s)
		}
	}
	if strings.Contains(s, "Notification") || strings.Count(s, `"matcher": ".*"`) != 2 {
		t.Errorf("a matcher on the two tool events only, no Notification:\n%s", s)
	}
	if !strings.HasPrefix(s, "{\n  \"indexingDenyDirs\": [\n    \"/home/me/scratch\"\n  ],\n  \"model\": \"sonnet4.5\",") {
		t.Errorf("the file's start moved:\n%s", s)
	}
	if st, err := p.Status(ie); err != nil || st.State != provider.Installed {
		t.Errorf("status %+v %v", st, err)
	}
	if res, err := p.Install(ie); err != nil || res.Changed {
		t.Errorf("a second install changed %+v %v", res, err)
	}
	if _, err := p.Uninstall(ie); err != nil {
		t.Fatal(err)
	}
	if back, _ := os.ReadFile(path); string(back) != string(orig) {
		t.Errorf("uninstall left:\n%s\nwant:\n%s", back, orig)
	}
	if st, _ := p.Status(ie); st.State != provider.NotInstalled {
		t.Errorf("after uninstall %v", st.State)
	}
}

// Auggie rewrites settings.json itself (the model, indexing choices):
// uninstall then keeps its changes and says the file is not the original.
func TestUninstallAfterAuggieWrote(t *testing.T) {
	p := New()
	env, path := home(t, "")
	ie := provider.InstallEnv{Env: env, Hook: hookPath}
	if _, err := p.Install(ie); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	s := strings.Replace(string(b), "{\n", "{\n  \"indexingDenyDirs\": [\"/w\"],\n", 1)
	os.WriteFile(path, []byte(s), 0o600)
	if _, err := p.Uninstall(ie); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if strings.Contains(string(b), "ag-hook") || !strings.Contains(string(b), `"indexingDenyDirs"`) {
		t.Errorf("after uninstall:\n%s", b)
	}
}

func TestHandEditedNeedsRepair(t *testing.T) {
	p := New()
	env, path := home(t, "")
	ie := provider.InstallEnv{Env: env, Hook: hookPath}
	if _, err := p.Install(ie); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(b), `"timeout": 10000`, `"timeout": 5`, 1)), 0o600)
	st, err := p.Status(ie)
	if err != nil || st.State != provider.NeedsRepair || len(st.Reasons) == 0 {
		t.Errorf("status %+v %v", st, err)
	}
	if _, err := p.Install(ie); err != nil {
		t.Fatal(err)
	}
	if st, _ := p.Status(ie); st.State != provider.Installed {
		t.Errorf("after repair %+v", st)
	}
}

func TestRefusesWhatItCannotParse(t *testing.T) {
	p := New()
	for _, name := range []string{"broken.json", "bad-shape.json"} {
		env, path := home(t, name)
		orig, _ := os.ReadFile(path)
		_, err := p.Install(provider.InstallEnv{Env: env, Hook: hookPath})
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: install: %v", name, err)
		}
		if b, _ := os.ReadFile(path); string(b) != string(orig) {
			t.Errorf("%s was touched", name)
		}
		if _, err := os.Stat(path + ".ag-backup"); err == nil {
			t.Errorf("%s: a backup of a file never changed", name)
		}
	}
}

func TestPaths(t *testing.T) {
	env := func(k string) string { return map[string]string{"HOME": "/home/u"}[k] }
	if got := New().ConfigPath(env); got != "/home/u/.augment/settings.json" {
		t.Errorf("settings: %s", got)
	}
	if r := New().TranscriptRoots(env); len(r) != 1 || r[0].Dir != "/home/u/.augment/sessions" || r[0].Globs[0] != "*.json" {
		t.Errorf("roots %+v", r)
	}
}
