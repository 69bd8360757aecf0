package hookjson

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/providers/provider"
	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite testdata/install.txtar's expected output")

const goldenFile = "testdata/install.txtar"

func testSpec() *Spec {
	return &Spec{
		Entries: []Entry{{Event: "SessionStart"}, {Event: "PreToolUse", Matcher: "*"}, {Event: "Stop"}},
		Command: Quote("/opt/ag bin/ag-hook") + " claude",
		Timeout: 10,
		Owns:    OwnedBy("ag-hook", "claude"),
	}
}

// inputs are the NAME.json sections; nil data means "no file".
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
			if name != "missing" {
				m[name] = f.Data
			}
		}
	}
	return a, names, m
}

// file puts data (nil: nothing) at dir/settings.json.
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

// TestInstallGolden installs into every input, then uninstalls, and
// compares both files with the golden ones.
func TestInstallGolden(t *testing.T) {
	a, names, in := inputs(t)
	want := map[string][]byte{}
	for _, f := range a.Files {
		want[f.Name] = f.Data
	}
	var files []txtar.File
	for _, name := range names {
		path := file(t, in[name])
		if _, err := Install(provider.InstallEnv{DryRun: false}, path, testSpec()); err != nil {
			t.Fatalf("%s: install: %v", name, err)
		}
		installed := read(t, path)
		if _, err := Uninstall(provider.InstallEnv{DryRun: false}, path, testSpec()); err != nil {
			t.Fatalf("%s: uninstall: %v", name, err)
		}
		uninstalled, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			uninstalled = []byte("(no file: ag's install made it, and uninstall took it away)\n")
		}
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

// TestInstallProperties holds for every input: install leaves it
// Installed, a second install changes nothing, everything not ours
// survives install and uninstall with the same meaning, and uninstall
// leaves Not installed.
func TestInstallProperties(t *testing.T) {
	_, names, in := inputs(t)
	s := testSpec()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := file(t, in[name])
			if _, err := Install(provider.InstallEnv{DryRun: false}, path, s); err != nil {
				t.Fatal(err)
			}
			if st, _ := Status(path, s); st.State != provider.Installed {
				t.Errorf("after install: %v %v", st.State, st.Reasons)
			}
			once := read(t, path)
			res, err := Install(provider.InstallEnv{DryRun: false}, path, s)
			if err != nil || res.Changed || len(res.Actions) > 0 || !bytes.Equal(read(t, path), once) {
				t.Errorf("second install changed something: %+v %v", res, err)
			}
			if in[name] != nil {
				if got, want := foreign(t, once, s), foreign(t, in[name], s); !reflect.DeepEqual(got, want) {
					t.Errorf("install changed what is not ours:\n got %v\nwant %v", got, want)
				}
			}
			if _, err := Uninstall(provider.InstallEnv{DryRun: false}, path, s); err != nil {
				t.Fatal(err)
			}
			after, err := os.ReadFile(path)
			if in[name] == nil && !os.IsNotExist(err) {
				t.Errorf("the file install made is still there after uninstall: %q", after)
			}
			// A file that held nothing of ag's comes back byte for byte.
			if d, err := Parse(in[name]); err == nil && in[name] != nil {
				if st, _ := d.Status(s); st == provider.NotInstalled && !bytes.Equal(after, in[name]) {
					t.Errorf("uninstall after install is not the file as it was:\n%s\nwant:\n%s", after, in[name])
				}
			}
			if st, _ := Status(path, s); st.State != provider.NotInstalled {
				t.Errorf("after uninstall: %v %v", st.State, st.Reasons)
			}
			if in[name] != nil {
				if got, want := foreign(t, after, s), foreign(t, in[name], s); !reflect.DeepEqual(got, want) {
					t.Errorf("uninstall changed what is not ours:\n got %v\nwant %v", got, want)
				}
			}
		})
	}
}

// foreign is the file's meaning minus ag's handlers: the top-level
// members but "hooks", and each event's non-ag handlers with their group's
// other members (order kept). Emptied groups and events, and an empty
// hooks object, count as absent.
func foreign(t *testing.T, data []byte, s *Spec) map[string]any {
	t.Helper()
	var top map[string]any
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}
	}
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatalf("not JSON any more: %v\n%s", err, data)
	}
	hooks, _ := top["hooks"].(map[string]any)
	delete(top, "hooks")
	kept := map[string]any{}
	for ev, v := range hooks {
		var groups []any
		for _, g := range v.([]any) {
			gm := g.(map[string]any)
			hs, hasHooks := gm["hooks"].([]any)
			var mine []any
			for _, h := range hs {
				hm := h.(map[string]any)
				cmd, _ := hm["command"].(string)
				var args []string
				for _, a := range asSlice(hm["args"]) {
					if s, ok := a.(string); ok {
						args = append(args, s)
					}
				}
				if hm["type"] == "command" && s.Owns(cmd, args) {
					continue
				}
				mine = append(mine, h)
			}
			if hasHooks && len(hs) > 0 && len(mine) == 0 {
				continue
			}
			c := map[string]any{}
			for k, v := range gm {
				c[k] = v
			}
			if hasHooks {
				c["hooks"] = mine
			}
			groups = append(groups, c)
		}
		if len(groups) > 0 {
			kept[ev] = groups
		}
	}
	if len(kept) > 0 {
		top["hooks"] = kept
	}
	return top
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func TestStatus(t *testing.T) {
	_, _, in := inputs(t)
	s := testSpec()
	tests := []struct {
		name    string
		state   provider.InstallState
		reasons []string
	}{
		{"missing", provider.NotInstalled, nil},
		{"empty", provider.NotInstalled, nil},
		{"foreign", provider.NotInstalled, nil},
		{"installed", provider.Installed, nil},
		{"stale-path", provider.NeedsRepair, []string{
			"SessionStart: runs '/old/place/ag-hook' claude (missing), want '/opt/ag bin/ag-hook' claude",
			"Stop: runs /old/place/ag-hook claude (missing), want '/opt/ag bin/ag-hook' claude",
			"PreCompact: not an event ag hooks",
		}},
		{"duplicates", provider.NeedsRepair, []string{
			"SessionStart: 2 handlers (duplicates)",
			`PreToolUse: matcher "Bash", want "*"`,
			"Stop: hand-edited",
		}},
		{"exec-form", provider.NeedsRepair, []string{
			"SessionStart: missing",
			"PreToolUse: missing",
			"Stop: runs /opt/ag bin/ag-hook claude (missing), want '/opt/ag bin/ag-hook' claude",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Status(file(t, in[tc.name]), s)
			if err != nil {
				t.Fatal(err)
			}
			if st.State != tc.state || !slices.Equal(st.Reasons, tc.reasons) {
				t.Errorf("Status = %v %q\nwant   %v %q", st.State, st.Reasons, tc.state, tc.reasons)
			}
		})
	}
}

// TestRefuse: a file that is not JSON, or not the shape an agent reads, is
// reported and left exactly as it was, and no backup is written.
func TestRefuse(t *testing.T) {
	for _, bad := range []string{
		`{"hooks": {`,
		`{"a": 1,}`,
		`{"a": 1} {"b": 2}`,
		`[1, 2]`,
		`// comment` + "\n{}",
		`{"hooks": []}`,
		`{"hooks": "x"}`,
		`{"hooks": {"Stop": {}}}`,
		`{"hooks": {"Stop": [1]}}`,
		`{"hooks": {"Stop": [{"hooks": {}}]}}`,
		`{"hooks": {"Stop": [{"matcher": 3, "hooks": []}]}}`,
		`{"hooks": {"Stop": [{"hooks": ["ag-hook claude"]}]}}`,
		`{"hooks": {"Stop": []}, "hooks": {}}`,
		`{"hooks": {"Stop": [], "Stop": []}}`,
	} {
		path := file(t, []byte(bad))
		old := time.Now().Add(-time.Hour)
		os.Chtimes(path, old, old)
		for op, f := range map[string]func() error{
			"install":   func() error { _, err := Install(provider.InstallEnv{DryRun: false}, path, testSpec()); return err },
			"uninstall": func() error { _, err := Uninstall(provider.InstallEnv{DryRun: false}, path, testSpec()); return err },
			"status":    func() error { _, err := Status(path, testSpec()); return err },
		} {
			err := f()
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("%s of %q: error %v, want one naming the file", op, bad, err)
			}
		}
		fi, _ := os.Stat(path)
		if got := read(t, path); string(got) != bad || !fi.ModTime().Equal(old) {
			t.Errorf("%q was touched: now %q", bad, got)
		}
		if _, err := os.Stat(path + BackupSuffix); err == nil {
			t.Errorf("%q: backup written for a refused file", bad)
		}
	}
	_, err := Status(file(t, []byte("{\n  \"a\": 1,\n  \"b\": tru\n}")), testSpec())
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("syntax error %v, want its line", err)
	}
}

func TestBackupModeAndDryRun(t *testing.T) {
	orig := []byte("{\n  \"a\": 1\n}\n")
	path := file(t, orig)
	os.Chmod(path, 0o640)

	res, err := Install(provider.InstallEnv{DryRun: true}, path, testSpec())
	if err != nil || !res.Changed || len(res.Actions) != 3 || res.Backup != "" {
		t.Fatalf("dry install: %+v %v", res, err)
	}
	if !bytes.Equal(read(t, path), orig) {
		t.Fatal("dry run wrote the file")
	}
	if _, err := os.Stat(path + BackupSuffix); err == nil {
		t.Fatal("dry run wrote a backup")
	}

	res, err = Install(provider.InstallEnv{DryRun: false}, path, testSpec())
	if err != nil || res.Backup != path+BackupSuffix {
		t.Fatalf("install: %+v %v", res, err)
	}
	if b := read(t, res.Backup); !bytes.Equal(b, orig) {
		t.Errorf("backup holds %q, want the file as it was", b)
	}
	installed := read(t, path)
	for _, p := range []string{path, res.Backup} {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v, want the file's 0640", filepath.Base(p), fi.Mode().Perm())
		}
	}
	// The backup is the user's original: ag's own later writes (a
	// repair, an uninstall) never overwrite it.
	os.WriteFile(path, bytes.Replace(installed, []byte(`"Stop"`), []byte(`"Stopp"`), 1), 0o640)
	if _, err := Install(provider.InstallEnv{}, path, testSpec()); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(provider.InstallEnv{}, path, testSpec()); err != nil {
		t.Fatal(err)
	}
	if b := read(t, res.Backup); !bytes.Equal(b, orig) {
		t.Errorf("backup after repair and uninstall holds %q, want the original", b)
	}
	// A file with nothing of ag's in it is the user's newer original.
	newer := []byte("{\n  \"a\": 2\n}\n")
	os.WriteFile(path, newer, 0o640)
	if _, err := Install(provider.InstallEnv{}, path, testSpec()); err != nil {
		t.Fatal(err)
	}
	if b := read(t, res.Backup); !bytes.Equal(b, newer) {
		t.Errorf("backup of a file without ag's hooks holds %q, want %q", b, newer)
	}
	if _, err := Uninstall(provider.InstallEnv{}, path, testSpec()); err != nil {
		t.Fatal(err)
	}
	orig = newer
	if !bytes.Equal(read(t, path), orig) {
		t.Errorf("install + uninstall: %q, want the original %q", read(t, path), orig)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".settings.json.ag-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestNewFileAndDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", ".claude", "settings.json")
	res, err := Install(provider.InstallEnv{DryRun: false}, path, testSpec())
	if err != nil || res.Backup != "" {
		t.Fatalf("%+v %v", res, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file: %v %v", fi, err)
	}
	if st, _ := Status(path, testSpec()); st.State != provider.Installed {
		t.Errorf("status %v", st.State)
	}
}

// TestSymlink: a dotfiles-managed settings.json stays a symlink; the file
// it points to gets the change, the backup sits beside the link.
func TestSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude-settings.json")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.WriteFile(real, []byte(`{"a": 1}`), 0o600)
	link := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink("../dotfiles/claude-settings.json", link); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(provider.InstallEnv{DryRun: false}, link, testSpec()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("settings.json is no longer a symlink: %v %v", fi, err)
	}
	if !bytes.Contains(read(t, real), []byte("ag-hook")) {
		t.Error("the link's target was not changed")
	}
	if b := read(t, link+BackupSuffix); string(b) != `{"a": 1}` {
		t.Errorf("backup %q", b)
	}
	// A dangling link is followed too: the file is created where it points.
	os.Remove(real)
	if _, err := Install(provider.InstallEnv{DryRun: false}, link, testSpec()); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("dangling link replaced by a file")
	}
	if _, err := os.Stat(real); err != nil {
		t.Errorf("target not created: %v", err)
	}
}

func TestWordsAndQuote(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ag-hook claude", []string{"ag-hook", "claude"}},
		{"'/a b/ag-hook' claude", []string{"/a b/ag-hook", "claude"}},
		{`"/a b/ag-hook" claude`, []string{"/a b/ag-hook", "claude"}},
		{`/a\ b/ag-hook   claude `, []string{"/a b/ag-hook", "claude"}},
		{`'it'\''s' x`, []string{"it's", "x"}},
		{"~/bin/ag-hook claude", []string{"~/bin/ag-hook", "claude"}},
		{"a#b c", []string{"a#b", "c"}},
		{"ag-hook claude | tee x", nil},
		{"ag-hook claude; rm x", nil},
		{"ag-hook claude > /dev/null", nil},
		{"$HOME/ag-hook claude", nil},
		{`"$HOME/ag-hook" claude`, nil},
		{"ag-hook claude # hi", nil},
		{"'unterminated", nil},
		{"", nil},
	}
	for _, tc := range tests {
		if got := Words(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	owns := OwnedBy("ag-hook", "claude")
	for cmd, want := range map[string]bool{
		"'/x/ag-hook' claude": true, "ag-hook claude": true, "/x/ag-hook codex": false,
		"/x/ag-hook claude --v": false, "/x/not-ag-hook claude": false, "ag-hook": false,
	} {
		if owns(cmd, nil) != want {
			t.Errorf("owns(%q) = %v", cmd, !want)
		}
	}
}

func FuzzQuote(f *testing.F) {
	for _, s := range []string{"/usr/bin/ag-hook", "/a b/c", "it's", `"$x"`, "a\\b", "\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := Words(Quote(s) + " claude"); !slices.Equal(got, []string{s, "claude"}) {
			t.Fatalf("Words(Quote(%q)) = %q", s, got)
		}
	})
}

// FuzzParse: any input either is refused or survives a round trip with
// its meaning; installing never loses a foreign member.
func FuzzParse(f *testing.F) {
	_, _, in := inputs(f)
	for _, d := range in {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			return
		}
		out := d.Bytes()
		if len(bytes.TrimSpace(data)) > 0 && !jsonEqual(out, data) {
			t.Fatalf("untouched round trip changed meaning:\n%s\n%s", data, out)
		}
		s := testSpec()
		d.Install(s)
		out = d.Bytes()
		d2, err := Parse(out)
		if err != nil {
			t.Fatalf("install wrote what it cannot read: %v\n%s", err, out)
		}
		if st, why := d2.Status(s); st != provider.Installed {
			t.Fatalf("after install: %v %v\n%s", st, why, out)
		}
		// Taking out what install put in gives back the bytes, for a file
		// with nothing of ag's in it and no empty list or hooks object
		// (those come back through the backup, see Uninstall).
		d0, _ := Parse(data)
		if st, _ := d0.Status(s); st != provider.NotInstalled || d0.canonical() != strings.TrimSpace(compactOf(data)) {
			return
		}
		d2.Uninstall(s)
		if back := d2.Bytes(); len(bytes.TrimSpace(data)) > 0 && !bytes.Equal(back, data) {
			t.Fatalf("uninstall after install:\n%q\nwant\n%q", back, data)
		}
	})
}

func compactOf(data []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, data) != nil {
		return ""
	}
	return b.String()
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestFormat: a file in Gemini's settings format — comments, and hook
// settings beside the events under "hooks" — is edited with its comments
// outside "hooks" and its settings kept, and still refused when broken.
func TestFormat(t *testing.T) {
	s := testSpec()
	s.Format = Format{Comments: true, Settings: []string{"enabled", "disabled"}}
	in := `// my settings
{
  /* theme */ "ui": {"theme": "Default"}, // trailing
  "url": "http://example.com/*not a comment*/",
  "hooks": {
    "enabled": true,
    "disabled": ["x"],
    "Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]
  }
}
`
	path := file(t, []byte(in))
	if _, err := Install(provider.InstallEnv{}, path, s); err != nil {
		t.Fatal(err)
	}
	got := string(read(t, path))
	for _, want := range []string{"// my settings\n{", "/* theme */ \"ui\"", "// trailing", `"http://example.com/*not a comment*/"`, `"enabled": true`, `"disabled": [`, `"mine"`, "ag-hook"} {
		if !strings.Contains(got, want) {
			t.Errorf("after install, %q is missing:\n%s", want, got)
		}
	}
	if st, err := Status(path, s); err != nil || st.State != provider.Installed {
		t.Errorf("status %v %v", st, err)
	}
	if _, err := Uninstall(provider.InstallEnv{}, path, s); err != nil {
		t.Fatal(err)
	}
	got = string(read(t, path))
	if !strings.Contains(got, "// my settings") || !strings.Contains(got, `"enabled": true`) || strings.Contains(got, "ag-hook") {
		t.Errorf("after uninstall:\n%s", got)
	}
	// Without the format, the same file is refused.
	if _, err := Status(file(t, []byte(in)), testSpec()); err == nil {
		t.Error("a file with comments parsed without Format.Comments")
	}
	for _, bad := range []string{"{/* open", `{"hooks": {"enabled": true, "Stop": 1}}`} {
		if _, err := Status(file(t, []byte(bad)), s); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := Status(file(t, []byte("{\n\n/* x")), s); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("unterminated comment: %v, want line 3", err)
	}
}

// FuzzParseFormat: with comments and hook settings allowed, what install
// writes reads back installed, and an untouched file comes back as read.
func FuzzParseFormat(f *testing.F) {
	_, _, in := inputs(f)
	for _, d := range in {
		f.Add(d)
	}
	f.Add([]byte("// c\n{\"a\": \"//x\", /* y */ \"hooks\": {\"enabled\": false}}"))
	fm := Format{Comments: true, Settings: []string{"enabled", "disabled"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := fm.Parse(data)
		if err != nil {
			return
		}
		if out := d.Bytes(); len(bytes.TrimSpace(data)) > 0 && !bytes.Equal(out, data) {
			t.Fatalf("untouched file changed:\n%s\n%s", data, out)
		}
		s := testSpec()
		s.Format = fm
		d.Install(s)
		out := d.Bytes()
		d2, err := fm.Parse(out)
		if err != nil {
			t.Fatalf("install wrote what it cannot read: %v\n%s", err, out)
		}
		if st, why := d2.Status(s); st != provider.Installed {
			t.Fatalf("after install: %v %v\n%s", st, why, out)
		}
	})
}
