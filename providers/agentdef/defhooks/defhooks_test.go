package defhooks

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFind: the user's file names the dialect; a file that cannot be one
// (broken, another id, no processes, not a regular file) is none, and so
// is an id that could name a file elsewhere.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	env := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	}
	agents := filepath.Join(dir, "ag", "agents")
	os.MkdirAll(agents, 0o755)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(agents, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mycli.toml", "id = \"mycli\"\n[screen]\nlines = 3\n[hooks]\nprocesses = [\"mycli\"]\n[hooks.events]\nPromptSubmit = \"UserPromptSubmit\"\n")
	write("broken.toml", "id = \"broken\"\n[hooks\n")
	write("other.toml", "id = \"mine\"\n[hooks]\nprocesses = [\"x\"]\n")
	write("noproc.toml", "id = \"noproc\"\n[hooks]\n")
	write("nohooks.toml", "id = \"nohooks\"\n")
	os.Mkdir(filepath.Join(agents, "dir.toml"), 0o755)
	d := Find(env, "mycli")
	if d == nil || d.Agent != "mycli" || d.Events["PromptSubmit"] != "UserPromptSubmit" || d.ProcessNames()[0] != "mycli" {
		t.Fatalf("mycli: %+v", d)
	}
	for _, id := range []string{"broken", "other", "mine", "noproc", "nohooks", "dir", "../agents/mycli", "Mycli", "", "continue"} {
		if d := Find(env, id); d != nil {
			t.Errorf("%q: %+v, want none", id, d)
		}
	}
}
