package jsfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/contrib"
	"github.com/agwatch/ag/providers/provider"
)

func specIn(dir string) Spec {
	return Spec{Path: filepath.Join(dir, "plugins", "ag.js"), Source: contrib.OpenCodePlugin, Kind: "ag-opencode-plugin",
		Agent: "opencode", Agent1: "OpenCode", Note: "a note"}
}

func env(v string) provider.InstallEnv {
	return provider.InstallEnv{Env: func(string) string { return "" }, Hook: "/opt/ag tools/ag-hook", Version: v}
}

// TestLifecycle: install writes the file with the sentinel, the hook path
// and the agent; again changes nothing; status reads it back; another
// version's copy needs repair and install replaces it; uninstall deletes
// it; a foreign file of the same name is never overwritten nor deleted.
func TestLifecycle(t *testing.T) {
	dir := t.TempDir()
	s := specIn(dir)
	st, err := Status(env("v1.2.0"), s)
	if err != nil || st.State != provider.NotInstalled {
		t.Fatalf("before: %v %v", st.State, err)
	}
	res, err := Install(env("v1.2.0"), s)
	if err != nil || !res.Changed {
		t.Fatalf("install: %+v %v", res, err)
	}
	if !strings.Contains(strings.Join(res.Actions, "\n"), "restart OpenCode") {
		t.Errorf("install says nothing of a restart: %q", res.Actions)
	}
	b, _ := os.ReadFile(s.Path)
	head, _, _ := strings.Cut(string(b), "\n")
	if !strings.HasPrefix(head, "// ag-opencode-plugin v1.2.0 — ") ||
		!strings.Contains(string(b), "\nconst AG_HOOK = \"/opt/ag tools/ag-hook\";\n") || !strings.Contains(string(b), "\nconst AGENT = \"opencode\";\n") {
		t.Errorf("installed file:\n%.600s", b)
	}
	if fi, _ := os.Stat(s.Path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if res, _ := Install(env("v1.2.0"), s); res.Changed {
		t.Error("a second install changed the file")
	}
	if st, _ := Status(env("v1.2.0"), s); st.State != provider.Installed {
		t.Errorf("status after install: %v %q", st.State, st.Reasons)
	}
	// Another ag, another ag-hook path, a hand edit.
	if st, _ := Status(env("v1.3.0"), s); st.State != provider.NeedsRepair || !strings.Contains(st.Reasons[0], "outdated: ag v1.2.0 wrote it, this is ag v1.3.0") {
		t.Errorf("outdated copy: %v %q", st.State, st.Reasons)
	}
	other := env("v1.2.0")
	other.Hook = "/elsewhere/ag-hook"
	if st, _ := Status(other, s); st.State != provider.NeedsRepair || !strings.Contains(st.Reasons[0], "differs") {
		t.Errorf("other hook path: %v %q", st.State, st.Reasons)
	}
	res, err = Install(env("v1.3.0"), s)
	if err != nil || !res.Changed || !strings.Contains(res.Actions[0], "was v1.2.0") {
		t.Errorf("repair: %+v %v", res, err)
	}
	if st, _ := Status(env("v1.3.0"), s); st.State != provider.Installed {
		t.Errorf("after repair: %v", st.State)
	}
	if res, err := Uninstall(env("v1.3.0"), s); err != nil || !res.Changed {
		t.Errorf("uninstall: %+v %v", res, err)
	}
	if _, err := os.Stat(s.Path); !os.IsNotExist(err) {
		t.Error("uninstall left the file")
	}
	if ents, _ := os.ReadDir(filepath.Dir(s.Path)); len(ents) != 0 {
		t.Errorf("uninstall left %v: a backup of ag's own file is none of the user's", ents)
	}
	if res, err := Uninstall(env("v1.3.0"), s); err != nil || res.Changed {
		t.Errorf("uninstall with nothing there: %+v %v", res, err)
	}

	foreign := []byte("// my own plugin\nexport const Mine = async () => ({})\n")
	os.WriteFile(s.Path, foreign, 0o644)
	if _, err := Install(env("v1.3.0"), s); err == nil || !strings.Contains(err.Error(), "not ag's") {
		t.Errorf("install over a foreign file: %v", err)
	}
	if _, err := Uninstall(env("v1.3.0"), s); err == nil {
		t.Error("uninstall of a foreign file: no error")
	}
	if st, _ := Status(env("v1.3.0"), s); st.State != provider.NotInstalled || len(st.Reasons) == 0 {
		t.Errorf("status of a foreign file: %v %q", st.State, st.Reasons)
	}
	if b, _ := os.ReadFile(s.Path); string(b) != string(foreign) {
		t.Error("the foreign file was changed")
	}
}

// TestDryRun writes nothing.
func TestDryRun(t *testing.T) {
	s := specIn(t.TempDir())
	ie := env("v1")
	ie.DryRun = true
	if res, err := Install(ie, s); err != nil || !res.Changed {
		t.Fatalf("dry install: %+v %v", res, err)
	}
	if _, err := os.Stat(s.Path); !os.IsNotExist(err) {
		t.Error("a dry run wrote the file")
	}
}

// TestRenderSources: both shipped sources render (their sentinel and
// constants are where Render looks), quoting a path JavaScript must read
// back as written.
func TestRenderSources(t *testing.T) {
	for _, s := range []Spec{
		{Source: contrib.OpenCodePlugin, Kind: "ag-opencode-plugin", Agent: "opencode"},
		{Source: contrib.PiExtension, Kind: "ag-pi-extension", Agent: "omp"},
	} {
		b, err := s.Render(`/h/it's "x"/ag-hook`, "")
		if err != nil {
			t.Fatalf("%s: %v", s.Kind, err)
		}
		if !strings.HasPrefix(string(b), "// "+s.Kind+" devel — ") || !strings.Contains(string(b), `const AG_HOOK = "/h/it's \"x\"/ag-hook";`) ||
			!strings.Contains(string(b), `const AGENT = "`+s.Agent+`";`) || strings.Count(string(b), "\n") != strings.Count(s.Source, "\n") {
			t.Errorf("%s rendered:\n%.500s", s.Kind, b)
		}
	}
	if _, err := (Spec{Source: "// nope\n", Kind: "ag-x"}).Render("/h", ""); err == nil {
		t.Error("a source without a sentinel rendered")
	}
}
