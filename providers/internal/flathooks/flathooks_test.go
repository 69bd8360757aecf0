package flathooks

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agwatch/ag/providers/configtx"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite testdata/install.txtar's expected output")

const goldenFile = "testdata/install.txtar"

const hook = "/opt/ag bin/ag-hook"

// copilotSpec and cursorSpec are the two shapes, as the providers write
// them (the providers' own tests check their real specs).
func copilotSpec() *Spec {
	return &Spec{
		Events:  []string{"sessionStart", "preToolUse", "agentStop"},
		Command: "bash",
		Want: func(ev string) []hookjson.Member {
			return []hookjson.Member{
				{Key: "type", Raw: hookjson.String("command")},
				{Key: "bash", Raw: hookjson.String(hookjson.Quote(hook) + " copilot " + ev)},
				{Key: "timeoutSec", Raw: json.RawMessage("10")},
			}
		},
		Owns: func(command, ev string) bool {
			w := hookjson.Words(command)
			return len(w) == 3 && filepath.Base(w[0]) == "ag-hook" && w[1] == "copilot"
		},
	}
}

func cursorSpec() *Spec {
	return &Spec{
		Events:  []string{"sessionStart", "preToolUse", "stop"},
		Command: "command",
		Want: func(string) []hookjson.Member {
			return []hookjson.Member{{Key: "command", Raw: hookjson.String(hookjson.Quote(hook) + " cursor")}}
		},
		Owns: func(command, _ string) bool {
			w := hookjson.Words(command)
			return len(w) == 2 && filepath.Base(w[0]) == "ag-hook" && w[1] == "cursor"
		},
	}
}

var version = hookjson.Member{Key: "version", Raw: json.RawMessage("1")}

func specFor(name string) (*Spec, []hookjson.Member) {
	if strings.HasPrefix(name, "cursor-") {
		return cursorSpec(), []hookjson.Member{version}
	}
	return copilotSpec(), nil
}

func inputs(t testing.TB) (*txtar.Archive, []string, map[string][]byte) {
	a, err := txtar.ParseFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	m := map[string][]byte{}
	for _, f := range a.Files {
		if name, ok := strings.CutSuffix(f.Name, ".json"); ok {
			names = append(names, name)
			if !strings.HasSuffix(name, "missing") {
				m[name] = f.Data
			}
		}
	}
	return a, names, m
}

func file(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "settings.json")
	if data != nil {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readOrNil is read, with nil for a file that is not there.
func readOrNil(t *testing.T, path string) []byte {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil
	}
	return read(t, path)
}

func TestInstallGolden(t *testing.T) {
	a, names, in := inputs(t)
	want := map[string][]byte{}
	for _, f := range a.Files {
		want[f.Name] = f.Data
	}
	var files []txtar.File
	for _, name := range names {
		s, first := specFor(name)
		path := file(t, in[name])
		if _, err := Install(provider.InstallEnv{}, path, s, first...); err != nil {
			t.Fatalf("%s: install: %v", name, err)
		}
		installed := read(t, path)
		if _, err := Uninstall(provider.InstallEnv{}, path, s); err != nil {
			t.Fatalf("%s: uninstall: %v", name, err)
		}
		uninstalled := readOrNil(t, path) // a file ag made goes
		files = append(files,
			txtar.File{Name: name + ".json", Data: in[name]},
			txtar.File{Name: name + ".install", Data: installed},
			txtar.File{Name: name + ".uninstall", Data: uninstalled})
		if *update {
			continue
		}
		if !bytes.Equal(installed, want[name+".install"]) {
			t.Errorf("%s: after install:\n%s\nwant:\n%s", name, installed, want[name+".install"])
		}
		if !bytes.Equal(uninstalled, want[name+".uninstall"]) {
			t.Errorf("%s: after uninstall:\n%s\nwant:\n%s", name, uninstalled, want[name+".uninstall"])
		}
	}
	if *update {
		a.Files = files
		if err := os.WriteFile(goldenFile, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// meaning is a file's JSON value without ag's handlers.
func meaning(t *testing.T, data []byte, s *Spec) any {
	t.Helper()
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if hooks, ok := v["hooks"].(map[string]any); ok {
		for ev, list := range hooks {
			var keep []any
			for _, h := range list.([]any) {
				m := h.(map[string]any)
				if c, _ := m[s.Command].(string); c != "" && s.Owns(c, ev) {
					continue
				}
				keep = append(keep, h)
			}
			if len(keep) == 0 {
				delete(hooks, ev)
			} else {
				hooks[ev] = keep
			}
		}
		if len(hooks) == 0 {
			delete(v, "hooks")
		}
	}
	delete(v, "version") // added by a Cursor install, kept by its uninstall
	return v
}

// TestInstallProperties holds for every input: install leaves it
// Installed, a second install changes nothing, everything not ours keeps
// its meaning through install and uninstall, uninstall leaves Not
// installed, and a second uninstall changes nothing.
func TestInstallProperties(t *testing.T) {
	_, names, in := inputs(t)
	for _, name := range names {
		s, first := specFor(name)
		path := file(t, in[name])
		res, err := Install(provider.InstallEnv{}, path, s, first...)
		if err != nil || !res.Changed || len(res.Actions) == 0 {
			t.Fatalf("%s: install: %+v %v", name, res, err)
		}
		if st, err := Status(path, s); err != nil || st.State != provider.Installed {
			t.Errorf("%s: after install %v %v", name, st, err)
		}
		installed := read(t, path)
		if res, err := Install(provider.InstallEnv{}, path, s, first...); err != nil || res.Changed || !bytes.Equal(read(t, path), installed) {
			t.Errorf("%s: second install changed the file: %+v %v", name, res, err)
		}
		if !reflect.DeepEqual(meaning(t, installed, s), meaning(t, in[name], s)) {
			t.Errorf("%s: install changed what is not ours:\n%s", name, installed)
		}
		if _, err := Uninstall(provider.InstallEnv{}, path, s); err != nil {
			t.Fatal(err)
		}
		if st, err := Status(path, s); err != nil || st.State != provider.NotInstalled {
			t.Errorf("%s: after uninstall %v %v", name, st, err)
		}
		uninstalled := readOrNil(t, path)
		if !reflect.DeepEqual(meaning(t, uninstalled, s), meaning(t, in[name], s)) {
			t.Errorf("%s: uninstall changed what is not ours:\n%s", name, uninstalled)
		}
		if res, err := Uninstall(provider.InstallEnv{}, path, s); err != nil || res.Changed {
			t.Errorf("%s: second uninstall: %+v %v", name, res, err)
		}
		if strings.HasPrefix(name, "cursor-") && !bytes.Contains(uninstalled, []byte(`"version"`)) {
			t.Errorf("%s: uninstall dropped the version:\n%s", name, uninstalled)
		}
	}
}

func TestStatusReasons(t *testing.T) {
	_, _, in := inputs(t)
	st, err := Status(file(t, in["stale"]), copilotSpec())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"sessionStart: 2 handlers (duplicates)",
		"preToolUse: missing",
		"agentStop: hand-edited",
		"errorOccurred: not an event ag hooks",
	}
	if st.State != provider.NeedsRepair || !reflect.DeepEqual(st.Reasons, want) {
		t.Errorf("status %v %q, want Needs repair %q", st.State, st.Reasons, want)
	}
	if st, err := Status(file(t, in["settings"]), copilotSpec()); err != nil || st.State != provider.NotInstalled {
		t.Errorf("foreign hooks only: %v %v", st, err)
	}
	if st, err := Status(filepath.Join(t.TempDir(), "none.json"), copilotSpec()); err != nil || st.State != provider.NotInstalled {
		t.Errorf("no file: %v %v", st, err)
	}
}

// TestRefuses: a file ag cannot read is an error naming it, and stays as
// it was, byte for byte, with no backup.
func TestRefuses(t *testing.T) {
	for name, data := range map[string]string{
		"not json":              `{"hooks": {`,
		"comments":              "// mine\n{\"hooks\": {}}",
		"not an object":         `["hooks"]`,
		"hooks not an object":   `{"hooks": []}`,
		"event not an array":    `{"hooks": {"preToolUse": {"bash": "x"}}}`,
		"handler not an object": `{"hooks": {"preToolUse": ["x"]}}`,
		"event twice":           `{"hooks": {"agentStop": [], "agentStop": []}}`,
	} {
		path := file(t, []byte(data))
		for op, f := range map[string]func() error{
			"install":   func() error { _, err := Install(provider.InstallEnv{}, path, copilotSpec()); return err },
			"uninstall": func() error { _, err := Uninstall(provider.InstallEnv{}, path, copilotSpec()); return err },
			"status":    func() error { _, err := Status(path, copilotSpec()); return err },
		} {
			err := f()
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("%s: %s: error %v, want one naming the file", name, op, err)
			}
		}
		if got := read(t, path); string(got) != data {
			t.Errorf("%s: file changed: %s", name, got)
		}
		if _, err := os.Stat(path + configtx.BackupSuffix); err == nil {
			t.Errorf("%s: a backup was written", name)
		}
	}
}

// TestBackup: the file as the user had it is kept once, beside it.
func TestBackup(t *testing.T) {
	_, _, in := inputs(t)
	path := file(t, in["settings"])
	res, err := Install(provider.InstallEnv{}, path, copilotSpec())
	if err != nil || res.Backup != path+configtx.BackupSuffix {
		t.Fatalf("install: %+v %v", res, err)
	}
	if got := read(t, res.Backup); !bytes.Equal(got, in["settings"]) {
		t.Errorf("backup holds %s", got)
	}
	if _, err := Uninstall(provider.InstallEnv{}, path, copilotSpec()); err != nil {
		t.Fatal(err)
	}
	if got := read(t, res.Backup); !bytes.Equal(got, in["settings"]) {
		t.Errorf("uninstall replaced the backup: %s", got)
	}
}

func TestDryRun(t *testing.T) {
	_, _, in := inputs(t)
	path := file(t, in["settings"])
	res, err := Install(provider.InstallEnv{DryRun: true}, path, copilotSpec())
	if err != nil || !res.Changed || len(res.Actions) != 3 {
		t.Fatalf("dry run: %+v %v", res, err)
	}
	if !bytes.Equal(read(t, path), in["settings"]) {
		t.Error("a dry run wrote the file")
	}
}

// TestComments: for an agent that reads comments (Copilot), a file with
// them is edited: those outside "hooks" keep their bytes, the hooks
// value is written without its own, and uninstall gives back the user's
// file byte for byte.
func TestComments(t *testing.T) {
	const mine = `// my settings
{
  /* the banner */ "banner": "never",
  "hooks": {
    // audit every call
    "preToolUse": [{"type": "command", "bash": "./audit.sh"}]
  },
  "model": "gpt-5" // pinned
}
`
	s := copilotSpec()
	s.Comments = true
	path := file(t, []byte(mine))
	res, err := Install(provider.InstallEnv{}, path, s)
	if err != nil || !res.Changed || len(res.Actions) != 3 {
		t.Fatalf("install: %+v %v", res, err)
	}
	got := string(read(t, path))
	for _, want := range []string{"// my settings\n{\n  /* the banner */ \"banner\": \"never\",\n", `"model": "gpt-5" // pinned`, `"bash": "./audit.sh"`, `"'/opt/ag bin/ag-hook' copilot preToolUse"`} {
		if !strings.Contains(got, want) {
			t.Errorf("installed file lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "audit every call") {
		t.Errorf("the hooks value kept a comment it was written without:\n%s", got)
	}
	if st, err := Status(path, s); err != nil || st.State != provider.Installed {
		t.Errorf("status: %+v %v", st, err)
	}
	if _, err := Uninstall(provider.InstallEnv{}, path, s); err != nil {
		t.Fatal(err)
	}
	if got := string(read(t, path)); got != mine {
		t.Errorf("uninstall left:\n%s\nwant the user's file back:\n%s", got, mine)
	}
	// Without Comments the same file is refused (TestRefuses).
	if _, err := Status(path, copilotSpec()); err == nil {
		t.Error("a spec without comments read a file with them")
	}
}

// FuzzInstall: whatever the file holds, install either refuses it and
// leaves it byte for byte, or writes a file status calls installed, from
// which uninstall takes every handler of ag's and nothing else.
func FuzzInstall(f *testing.F) {
	_, _, in := inputs(f)
	for _, b := range in {
		f.Add(b, false)
	}
	f.Add([]byte("// c\n{\"hooks\": {\"preToolUse\": [{\"bash\": \"x\"}]} /* d */}"), true)
	f.Add([]byte(`{"version": 2, "hooks": {"stop": [{"command": "'/x/ag-hook' cursor"}]}}`), false)
	f.Fuzz(func(t *testing.T, data []byte, comments bool) {
		s := copilotSpec()
		s.Comments = comments
		path := file(t, data)
		if _, err := Install(provider.InstallEnv{}, path, s); err != nil {
			if got := read(t, path); !bytes.Equal(got, data) {
				t.Fatalf("refused (%v) but changed:\n%q\n%q", err, data, got)
			}
			return
		}
		if st, err := Status(path, s); err != nil || st.State != provider.Installed {
			t.Fatalf("after install: %+v %v\n%s", st, err, read(t, path))
		}
		if _, err := Uninstall(provider.InstallEnv{}, path, s); err != nil {
			t.Fatalf("uninstall: %v", err)
		}
		if st, err := Status(path, s); err != nil || st.State != provider.NotInstalled {
			t.Fatalf("after uninstall: %+v %v\n%s", st, err, read(t, path))
		}
	})
}
