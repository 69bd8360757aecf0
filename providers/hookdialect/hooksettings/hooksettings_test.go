package hooksettings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/providers/hookdialect"
	"github.com/agwatch/ag/providers/provider"
)

var dialect = hookdialect.Dialect{
	Agent: "example",
	Install: hookdialect.Install{
		Dir: ".example", ConfigDirEnv: "EXAMPLE_HOME", File: "settings.json",
		Timeout: 10, TimeoutUnit: hookdialect.Milliseconds, Comments: true,
		Entries: []hookdialect.Entry{{Event: "Stop"}, {Event: "Notification", Matcher: "idle_prompt"}},
	},
}

// TestInstallRoundTrip: the dialect's file, events, matchers and timeout
// unit are what install writes; status reads it back as installed; the
// user's comments survive; uninstall gives the file back byte for byte.
func TestInstallRoundTrip(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	ie := provider.InstallEnv{Env: func(k string) string { return env[k] }, Hook: "/opt/ag bin/ag-hook"}
	in := Installer{D: &dialect}
	path := filepath.Join(home, ".example", "settings.json")
	if got := in.ConfigPath(ie.Env); got != path {
		t.Fatalf("config path %s, want %s", got, path)
	}
	env["EXAMPLE_HOME"] = filepath.Join(home, "elsewhere")
	if got := in.ConfigPath(ie.Env); got != filepath.Join(home, "elsewhere", "settings.json") {
		t.Fatalf("config path %s with $EXAMPLE_HOME", got)
	}
	delete(env, "EXAMPLE_HOME")

	orig := "{\n  // the user's own\n  \"theme\": \"dark\"\n}\n"
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(orig), 0o600)
	if _, err := in.Install(ie); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	for _, want := range []string{`// the user's own`, `"Stop"`, `"matcher": "idle_prompt"`,
		`"command": "'/opt/ag bin/ag-hook' example"`, `"timeout": 10000`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("installed file lacks %s:\n%s", want, got)
		}
	}
	if st, err := in.Status(ie); err != nil || st.State != provider.Installed {
		t.Errorf("status %v %v %v", st.State, st.Reasons, err)
	}
	if _, err := in.Uninstall(ie); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != orig {
		t.Errorf("uninstall left\n%s\nwant\n%s", got, orig)
	}
}
