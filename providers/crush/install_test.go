package crush

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
		src = "testdata/config/" + name
	}
	return installtest.Home(t, src, ".config/crush/crush.json")
}

const hookPath = "/opt/ag bin/ag-hook"

// One PreToolUse handler after the user's, in Crush's flat list, the rest
// of the file (comments outside hooks too) kept; uninstall gives the
// file back byte for byte.
func TestInstallUninstall(t *testing.T) {
	p := New()
	env, path := home(t, "user.json")
	orig, _ := os.ReadFile(path)
	ie := provider.InstallEnv{Env: env, Hook: hookPath}
	res, err := p.Install(ie)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Backup == "" {
		t.Errorf("install: %+v", res)
	}
	b, _ := os.ReadFile(path)
	s := string(b)
	for _, want := range []string{`"command": "'/opt/ag bin/ag-hook' crush"`, `"timeout": 10`, `"./hooks/no-rm-rf.sh"`, "// my providers", `"notifications": "native"`} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s in\n%s", want, s)
		}
	}
	if strings.Index(s, "no-rm-rf.sh") > strings.Index(s, "ag-hook") {
		t.Errorf("ag's handler before the user's:\n%s", s)
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

// A crush.json ag made keeps nothing of ag's once uninstalled.
func TestInstallNewFile(t *testing.T) {
	p := New()
	env, path := home(t, "")
	ie := provider.InstallEnv{Env: env, Hook: hookPath}
	if _, err := p.Install(ie); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Uninstall(ie); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), "ag-hook") {
		t.Errorf("after uninstall:\n%s", b)
	}
}

func TestRefusesWhatItCannotParse(t *testing.T) {
	p := New()
	for _, name := range []string{"broken.json", "bad-shape.json"} {
		env, path := home(t, name)
		orig, _ := os.ReadFile(path)
		if _, err := p.Install(provider.InstallEnv{Env: env, Hook: hookPath}); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: install: %v", name, err)
		}
		if b, _ := os.ReadFile(path); string(b) != string(orig) {
			t.Errorf("%s was touched", name)
		}
	}
}

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		env          map[string]string
		config, data string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.config/crush/crush.json", "/h/.local/share/crush"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x", "XDG_DATA_HOME": "/d"}, "/x/crush/crush.json", "/d/crush"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x", "CRUSH_GLOBAL_CONFIG": "/g", "CRUSH_GLOBAL_DATA": "/gd"}, "/g/crush.json", "/gd"},
	} {
		env := func(k string) string { return tc.env[k] }
		if got := New().ConfigPath(env); got != tc.config {
			t.Errorf("%v: config %s, want %s", tc.env, got, tc.config)
		}
		if got := DataDir(env); got != tc.data {
			t.Errorf("%v: data %s, want %s", tc.env, got, tc.data)
		}
	}
}
