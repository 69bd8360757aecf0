package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/providers/provider"
)

// home puts testdata/settings/name at <home>/.gemini/settings.json (name
// "" for none) and returns the environment that points Gemini there.
func home(t *testing.T, name string) (provider.Env, string) {
	t.Helper()
	h := t.TempDir()
	path := filepath.Join(h, ".gemini", "settings.json")
	if name != "" {
		b, err := os.ReadFile("testdata/settings/" + name)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := func(k string) string {
		if k == "HOME" {
			return h
		}
		return ""
	}
	return env, path
}

const hookPath = "/opt/ag bin/ag-hook"

func TestInstallKeepsTheRest(t *testing.T) {
	p := New()
	env, path := home(t, "user.json")
	orig, _ := os.ReadFile(path)
	ie := provider.InstallEnv{Env: env, Hook: hookPath}
	res, err := p.Install(ie)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || len(res.Actions) != 7 || res.Backup == "" {
		t.Errorf("install: %+v", res)
	}
	after, _ := os.ReadFile(path)
	s := string(after)
	// Everything outside "hooks" is byte for byte what it was, comments too.
	head := string(orig[:strings.Index(string(orig), `"hooks"`)])
	if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, "\n  \"privacy\": { \"usageStatisticsEnabled\": false }\n}\n") {
		t.Errorf("the rest of the file moved:\n%s", s)
	}
	for _, want := range []string{`"'/opt/ag bin/ag-hook' gemini"`, `"timeout": 10000`, `lint.sh`, `notify-send 'Gemini finished'`, `"matcher": "write_file|replace"`} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s in\n%s", want, s)
		}
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
	back, _ := os.ReadFile(path)
	if !equalJSONC(t, back, orig) {
		t.Errorf("uninstall left:\n%s\nwant the meaning of:\n%s", back, orig)
	}
	if !strings.Contains(string(back), "// Gemini CLI reads this") || !strings.Contains(string(back), "/* default 0.5 */") {
		t.Error("comments lost")
	}
	if st, _ := p.Status(ie); st.State != provider.NotInstalled {
		t.Errorf("after uninstall %v", st.State)
	}
}

// TestInstallReplacesMigratedClaudeHooks: `gemini hooks migrate` copies
// ag's Claude handlers into Gemini's settings; they are reported and
// replaced, and the hook settings kept.
func TestInstallReplacesMigratedClaudeHooks(t *testing.T) {
	p := New()
	env, path := home(t, "migrated.json")
	ie := provider.InstallEnv{Env: env, Hook: hookPath}
	st, err := p.Status(ie)
	if err != nil || st.State != provider.NeedsRepair {
		t.Fatalf("status %+v %v", st, err)
	}
	why := strings.Join(st.Reasons, "; ")
	for _, want := range []string{"PermissionRequest: not an event ag hooks", "SessionStart: runs '/opt/ag/bin/ag-hook' claude", "AfterTool: missing"} {
		if !strings.Contains(why, want) {
			t.Errorf("reasons %q lack %q", why, want)
		}
	}
	if _, err := p.Install(ie); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "' claude") || strings.Contains(string(b), "PermissionRequest") || !strings.Contains(string(b), `"enabled": true`) {
		t.Errorf("after install:\n%s", b)
	}
	if st, _ := p.Status(ie); st.State != provider.Installed {
		t.Errorf("status after install %+v", st)
	}
}

func TestStatusHooksSwitchedOff(t *testing.T) {
	p := New()
	env, path := home(t, "")
	ie := provider.InstallEnv{Env: env, Hook: hookPath}
	if _, err := p.Install(ie); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var doc map[string]any
	json.Unmarshal(b, &doc)
	doc["hooksConfig"] = map[string]any{"enabled": false, "disabled": []string{"'/opt/ag bin/ag-hook' gemini"}}
	b, _ = json.Marshal(doc)
	os.WriteFile(path, b, 0o600)
	st, err := p.Status(ie)
	if err != nil || st.State != provider.NeedsRepair || len(st.Reasons) != 2 {
		t.Errorf("status %+v %v", st, err)
	}
}

func TestConfigPath(t *testing.T) {
	p := New()
	env := func(k string) string {
		return map[string]string{"HOME": "/home/u", "GEMINI_CLI_HOME": "/srv/g"}[k]
	}
	if got := p.ConfigPath(env); got != "/srv/g/.gemini/settings.json" {
		t.Errorf("GEMINI_CLI_HOME: %s", got)
	}
	if got := p.ConfigPath(func(k string) string { return map[string]string{"HOME": "/home/u"}[k] }); got != "/home/u/.gemini/settings.json" {
		t.Errorf("HOME: %s", got)
	}
	if r := p.TranscriptRoots(env); len(r) != 1 || r[0].Dir != "/srv/g/.gemini/tmp" {
		t.Errorf("roots %+v", r)
	}
}

func TestRefusesBrokenSettings(t *testing.T) {
	p := New()
	env, path := home(t, "")
	os.MkdirAll(filepath.Dir(path), 0o700)
	bad := "{\n  \"ui\": {\"theme\": \"x\"\n  // unclosed\n"
	os.WriteFile(path, []byte(bad), 0o600)
	_, err := p.Install(provider.InstallEnv{Env: env, Hook: hookPath})
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("install of a broken file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != bad {
		t.Error("a broken file was touched")
	}
}

// equalJSONC compares two settings files' meaning, comments left out.
func equalJSONC(t *testing.T, a, b []byte) bool {
	t.Helper()
	dec := func(x []byte) any {
		var v any
		if err := json.Unmarshal(stripForTest(x), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	ja, _ := json.Marshal(dec(a))
	jb, _ := json.Marshal(dec(b))
	return string(ja) == string(jb)
}

// stripForTest drops // and /* */ comments outside strings.
func stripForTest(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, b[i:min(j+1, len(b))]...)
			i = j
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			k := strings.Index(string(b[i+2:]), "*/")
			i += k + 3
		default:
			out = append(out, b[i])
		}
	}
	return out
}
