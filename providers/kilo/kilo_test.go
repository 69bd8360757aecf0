package kilo

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/internal/keystest"
	"github.com/agwatch/ag/providers/internal/parsertest"
	"github.com/agwatch/ag/providers/provider"
	_ "modernc.org/sqlite"
)

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		env        map[string]string
		plugin, db string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.config/kilo/plugins/ag.js", "/h/.local/share/kilo/kilo.db"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d"}, "/c/kilo/plugins/ag.js", "/d/kilo/kilo.db"},
		{map[string]string{"HOME": "/h", "KILO_DB": "/db/x.db"}, "/h/.config/kilo/plugins/ag.js", "/db/x.db"},
		{map[string]string{"HOME": "/h", "KILO_DB": "other.db"}, "/h/.config/kilo/plugins/ag.js", "/h/.local/share/kilo/other.db"},
		{map[string]string{"HOME": "/h", "XDG_DATA_HOME": "relative"}, "/h/.config/kilo/plugins/ag.js", "/h/.local/share/kilo/kilo.db"},
	} {
		env := func(k string) string { return tc.env[k] }
		p := New()
		if got := p.ConfigPath(env); got != tc.plugin {
			t.Errorf("%v: plugin %s", tc.env, got)
		}
		if got := p.StorePaths(env); len(got) != 1 || got[0] != tc.db {
			t.Errorf("%v: db %v", tc.env, got)
		}
	}
}

// TestDetect: npm's node launcher is looked through to its native child.
func TestDetect(t *testing.T) {
	r := New().ProcRules()
	for _, tc := range []struct {
		exe  string
		argv []string
		want provider.ProcMatch
	}{
		{"/usr/bin/node", []string{"node", "/p/node_modules/.bin/kilo"}, provider.ProcMatch{OK: true, Launcher: true}},
		{"/p/node_modules/@kilocode/cli/bin/.kilo", []string{"/p/node_modules/@kilocode/cli/bin/.kilo"}, provider.ProcMatch{OK: true}},
		{"/p/node_modules/@kilocode/cli/bin/.kilo", []string{"/p/node_modules/@kilocode/cli/bin/.kilo", "-s", "ses_x"}, provider.ProcMatch{OK: true}},
		{"/usr/bin/vim", []string{"vim", "kilo"}, provider.ProcMatch{}},
	} {
		if got := r.Match(tc.exe, tc.argv); got != tc.want {
			t.Errorf("Match(%q, %q) = %+v, want %+v", tc.exe, tc.argv, got, tc.want)
		}
	}
}

// TestPaneRules: Kilo 7.7.7's screens, captured in tmux at 120×40 (one at
// 60×20). The prompt that quotes the dialogs' own lines, at work and done,
// is no wait; typed letters leave the picker as it was.
func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	blue := []string{"Blue", "Green", "Type your own answer"}
	for _, tc := range []struct {
		file, state, attention, tool, text string
		labels                             []string
	}{
		{"idle-home", "idle", "", "", "", nil},
		{"idle", "idle", "", "", "", nil},
		{"working", "working", "", "", "", nil},
		{"working-esc-once", "working", "", "", "", nil}, // "esc again to interrupt"
		{"interrupted", "idle", "", "", "", nil},
		{"permission", "permission", "permission", "bash", "echo cap > cap.txt", nil},
		{"permission-60x20", "permission", "permission", "bash", "echo cap > cap.txt", nil},
		{"reject-reason", "reject-reason", "permission", "", "", nil},
		{"reject-typed", "reject-reason", "permission", "", "use printf instead", nil},
		{"question", "question", "question", "", "", blue},
		{"question-letters", "question", "question", "", "", blue},
		{"question-own-typed", "question", "question", "", "", blue},
		{"plan", "plan", "plan", "plan_exit", "", nil},
		{"plan-own-typed", "plan", "plan", "plan_exit", "", nil},
		{"plan-feedback", "idle", "", "", "", nil},
		{"plan-dismissed", "idle", "", "", "", nil},
		{"shell-mode", "shell", "", "", "", nil},
		{"quoted-working", "working", "", "", "", nil},
		{"quoted", "idle", "", "", "", nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := panes.Classify(&rules, screen(t, tc.file))
			if r.State != tc.state || r.Attention != tc.attention || r.Tool != tc.tool || r.Text != tc.text {
				t.Errorf("Classify = %+v; want state %q attention %q tool %q text %q", r, tc.state, tc.attention, tc.tool, tc.text)
			}
			if tc.labels != nil && (r.Picker == nil || strings.Join(r.Picker.Labels, "|") != strings.Join(tc.labels, "|") || r.Picker.At+r.Picker.Down != 2) {
				t.Errorf("picker %+v, want rows %q, the own answer the third", r.Picker, tc.labels)
			}
		})
	}
}

// TestInputs: what the inputs hold, read as ag-keys reads them before an
// Enter: the own answer's row (a question's, a plan's) and the rejection's
// reason.
func TestInputs(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct{ file, state, text string }{
		{"question-own-typed", paneOwnAnswer, "Teal please"},
		{"plan-own-typed", paneOwnAnswer, "add tests first"},
		{"question", paneOwnAnswer, ""},
		{"reject-typed", "reject-reason", "use printf instead"},
	} {
		only := rules.Only([]string{tc.state})
		r := panes.Classify(&only, screen(t, tc.file))
		if tc.text == "" {
			if r.State != "" && r.Text != "Type your own answer" && r.Text != "" {
				t.Errorf("%s: %+v, want no typed text", tc.file, r)
			}
			continue
		}
		if r.State != tc.state || r.Text != tc.text {
			t.Errorf("%s: %+v, want %s holding %q", tc.file, r, tc.state, tc.text)
		}
	}
}

func screen(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "screens", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestKeys: what ag-keys types for each action on each of Kilo's screens.
func TestKeys(t *testing.T) {
	km, rules := New().Keys(), New().PaneRules()
	for _, tc := range []struct {
		name, status, attention, screen, action, text, want string
	}{
		{"approve", "waiting", "permission", "permission", "approve", "", "Enter"},
		{"deny: the reason dialog, then Enter", "waiting", "permission", "permission", "deny", "", "Escape, 30ms, Enter once reject-reason shows"},
		{"deny from the reason dialog", "waiting", "permission", "reject-reason", "deny", "", "Enter"},
		{"approve from the reason dialog", "waiting", "permission", "reject-reason", "approve", "", "refused: kilo offers no approve for a permission wait"},
		{"feedback", "waiting", "permission", "permission", "reply", "use printf", `Escape, 150ms, "use printf" once reject-reason shows, 150ms, Enter once shown`},
		{"an option's label", "waiting", "question", "question", "answer", "green", "2"},
		{"own answer", "waiting", "question", "question", "answer", "Teal please", `3, 150ms, "Teal please", 150ms, Enter once shown`},
		{"approve on a question", "waiting", "question", "question", "approve", "", "refused: waiting on a question, not a permission or plan"},
		{"plan approve", "waiting", "plan", "plan", "approve", "", "2"},
		{"plan deny", "waiting", "plan", "plan", "deny", "", "Escape"},
		{"plan feedback", "waiting", "plan", "plan", "reply", "add tests first", `4, 150ms, "add tests first", 150ms, Enter once shown`},
		{"reply when done", "done", "", "idle", "reply", "/review it", `" /review it", 150ms, Enter`},
		{"shell is refused", "done", "", "idle", "reply", " !ls", "refused: unsafe reply: a reply starting with ! runs as a shell command in Kilo"},
		{"shell mode up", "done", "", "shell-mode", "reply", "ls", "refused: the composer is in shell mode: Enter would run the reply as a command"},
	} {
		if got := keystest.Press(rules, km, ID, tc.status, tc.attention, screen(t, tc.screen), tc.action, tc.text); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.name, got, tc.want)
		}
	}
}

func TestCommands(t *testing.T) {
	c := New().Commands()
	for _, tc := range []struct {
		got  func() (string, error)
		want string
	}{
		{func() (string, error) { return c.ResumeCommand("ses_dbdcf342", provider.Launch{}) }, "command kilo -s 'ses_dbdcf342'"},
		{func() (string, error) { return c.SpawnCommand("fix it", provider.Launch{Model: "fake/fake-model"}) }, "command kilo -m fake/fake-model --prompt 'fix it'"},
		{func() (string, error) { return c.ForkIDCommand("ses_dbdcf342", provider.Launch{}) }, "command kilo -s 'ses_dbdcf342' --fork"},
		{func() (string, error) { return c.ForkIDCommand("ses_a", provider.Launch{Model: "fake/m"}) }, "command kilo -m fake/m -s 'ses_a' --fork"},
	} {
		if l, err := tc.got(); l != tc.want || err != nil {
			t.Errorf("%q %v, want %q", l, err, tc.want)
		}
	}
	if !c.ForksByID() {
		t.Error("Kilo forks by id")
	}
	if _, err := c.ForkIDCommand("x'; rm -rf ~", provider.Launch{}); err != nil {
		t.Errorf("a quote in an id is quoted, not refused: %v", err)
	}
	if _, err := c.ForkIDCommand("-s", provider.Launch{}); err == nil {
		t.Error("an id that reads as a flag")
	}
}

// TestInstall: the plugin is OpenCode's, named and filled for Kilo.
func TestInstall(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home}[k] }
	ie := provider.InstallEnv{Env: env, Hook: "/opt/ag/ag-hook", Version: "v1.2.0"}
	p := New()
	res, err := p.Install(ie)
	if err != nil || !res.Changed || !strings.Contains(strings.Join(res.Actions, "\n"), "restart Kilo") {
		t.Fatalf("install: %+v %v", res, err)
	}
	b, _ := os.ReadFile(filepath.Join(home, ".config", "kilo", "plugins", "ag.js"))
	head, _, _ := strings.Cut(string(b), "\n")
	if head != "// ag-kilo-plugin v1.2.0 — reports Kilo's sessions to ag (https://github.com/agwatch/ag); `ag-hook uninstall --agent kilo` removes this file" ||
		!strings.Contains(string(b), "\nconst AGENT = \"kilo\";\n") || !strings.Contains(string(b), "\nconst AG_HOOK = \"/opt/ag/ag-hook\";\n") {
		t.Errorf("installed plugin:\n%.300s", b)
	}
	if st, err := p.Status(ie); err != nil || st.State != provider.Installed {
		t.Errorf("status: %+v %v", st, err)
	}
	if res, err := p.Uninstall(ie); err != nil || !res.Changed {
		t.Errorf("uninstall: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "kilo", "plugins", "ag.js")); !os.IsNotExist(err) {
		t.Error("uninstall left the plugin")
	}
}

// schema is the part of Kilo 7.7.7's kilo.db the reader reads, as Kilo
// creates it (OpenCode's tables, more columns).
const schema = "CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `cost` real DEFAULT 0 NOT NULL, `tokens_input` integer DEFAULT 0 NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL);" +
	"CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);" +
	"CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);"

// kiloWorlds makes kilo.db worlds, one at a time, in the same folder (the
// events name the database): a kilo.db and a kilo.json declaring the
// model's window, and Kilo's writes — a session, its steps, a sub-agent's
// step.
func kiloWorlds(t *testing.T) func(t *testing.T) (func() provider.StoreReader, []func()) {
	home := filepath.Join(t.TempDir(), "home")
	var last *sql.DB
	t.Cleanup(func() {
		if last != nil {
			last.Close()
		}
	})
	return func(t *testing.T) (func() provider.StoreReader, []func()) {
		if last != nil {
			last.Close()
		}
		os.RemoveAll(home)
		open, writes, db := kiloWorld(t, home)
		last = db
		return open, writes
	}
}

func kiloWorld(t *testing.T, home string) (func() provider.StoreReader, []func(), *sql.DB) {
	env := func(k string) string { return map[string]string{"HOME": home}[k] }
	cfg := filepath.Join(home, ".config", "kilo")
	os.MkdirAll(cfg, 0o700)
	os.WriteFile(filepath.Join(cfg, "kilo.json"), []byte(`{"provider":{"fake":{"models":{"fake-model":{"limit":{"context":128000}}}}}}`), 0o600)
	path := DBPath(env)
	os.MkdirAll(filepath.Dir(path), 0o700)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(schema)
	n := 0
	session := func(id, parent string, cost float64) func() {
		return func() {
			var p any
			if parent != "" {
				p = parent
			}
			exec("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, cost, time_created, time_updated) VALUES (?, 'global', ?, 'crisp-rocket', '/w', 'Fake title', '7.7.7', ?, 1, 1) ON CONFLICT(id) DO UPDATE SET cost = excluded.cost", id, p, cost)
		}
	}
	step := func(session string, in, out, cached int64) func() {
		return func() {
			n++
			msg := fmt.Sprintf("msg_%04d", n)
			at := int64(1796406830000 + n)
			exec("INSERT INTO message VALUES (?, ?, ?, ?, ?)", msg, session, at, at,
				`{"role":"assistant","mode":"code","agent":"code","modelID":"fake-model","providerID":"fake"}`)
			exec("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", "prt_s"+msg, msg, session, at, at,
				fmt.Sprintf(`{"reason":"stop","type":"step-finish","tokens":{"total":%d,"input":%d,"output":%d,"reasoning":0,"cache":{"write":0,"read":%d}},"cost":0}`, in+out+cached, in, out, cached))
		}
	}
	open := func() provider.StoreReader { return NewStore(path, env) }
	return open, []func(){session("ses_a", "", 0), step("ses_a", 7047, 15, 7046), step("ses_a", 7087, 14, 7086),
		session("ses_c", "ses_a", 0), step("ses_c", 100, 1, 0), step("ses_a", 7124, 15, 7124)}, db
}

// TestStore: Kilo's steps are meters under Kilo's id, the context against
// the window kilo.json declares; the reader's checkpoint holds at every
// write (parsertest).
func TestStore(t *testing.T) {
	t.Parallel()
	worlds := kiloWorlds(t)
	open, writes := worlds(t)
	for _, w := range writes {
		w()
	}
	r := open()
	defer r.Close()
	var got []event.Event
	if err := r.Read(func(e *event.Event) { got = append(got, *e) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d meters, want 4", len(got))
	}
	e := got[0]
	if e.Agent != ID || e.Session != "ses_a" || e.Model != "fake/fake-model" || e.Tokens.In != 7047 || e.Context.Used != 14108 || e.Context.Size != 128000 || *e.Context.LeftPct != 89 {
		t.Errorf("first meter: %s", event.Marshal(&e))
	}
	if s := got[2]; s.Session != "ses_a" || s.Sub != "ses_c" || s.Context != nil {
		t.Errorf("the sub-agent's step: %s", event.Marshal(&s))
	}
	r.Close()
	parsertest.StoreCheckpoints(t, worlds)
}
