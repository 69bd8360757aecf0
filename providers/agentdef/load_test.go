package agentdef

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/agentdef/builtin"
	"github.com/agwatch/ag/providers/provider"
)

// toy is a small valid definition: a script agent that asks "Run it?".
const toy = `id = "toy"
name = "Toy agent"

[process]
names = ["toy-agent"]

[screen]
[[screen.state]]
name = "ask"
kind = "wait"
attention = "permission"
anchor = '^\[y\] yes  \[n\] no$'
all = [{ match = '^Run it\?$', from = -1, to = -1 }]
bottom = 1

[[screen.state]]
name = "idle"
kind = "idle"
anchor = '^> $'
bottom = 1

[keys]
approve = ["y"]
deny = ["n"]
`

// TestRefused: each fault is refused at the line of the key at fault,
// naming it and why.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		name, edit, want string
	}{
		{"not toml", "[process\n", `toy.toml:1: expected ']'`},
		{"unknown key", "colour = 3\n", `toy.toml:1: unknown key colour`},
		{"unknown key in a state", strings.Replace(toy, "bottom = 1\n", "bottm = 1\n", 1), `toy.toml:14: unknown key screen.state.bottm`},
		{"wrong type", strings.Replace(toy, "bottom = 1\n", "bottom = 'one'\n", 1), `toy.toml:14: cannot decode TOML string`},
		{"id and file", strings.Replace(toy, `id = "toy"`, `id = "other"`, 1), `toy.toml:1: id: "other", but the file is toy.toml`},
		{"bad regexp", strings.Replace(toy, `'^> $'`, `'^> ($'`, 1), `toy.toml:19: screen.state[1].anchor: missing closing )`},
		{"wait without attention", strings.Replace(toy, "attention = \"permission\"\n", "", 1), `toy.toml:8: screen.state[0].attention: a wait needs attention`},
		{"wait unanchored", strings.Replace(toy, `'^\[y\] yes  \[n\] no$'`, `'\[y\] yes'`, 1), `toy.toml:12: screen.state[0].anchor: a wait's anchor must start with ^`},
		{"wait anchor alone", strings.Replace(toy, "all = [{ match = '^Run it\\?$', from = -1, to = -1 }]\n", "", 1), `screen.state[0].all: a wait needs at least one other line`},
		{"wait anywhere", strings.Replace(toy, "bottom = 1\n", "bottom = 0\n", 1), `toy.toml:14: screen.state[0].bottom: a wait must sit at the bottom`},
		{"from below to", strings.Replace(toy, "from = -1, to = -1", "from = 1, to = -1", 1), `toy.toml:13: screen.state[0].all[0]: from 1 is below to -1`},
		{"twice named", strings.Replace(toy, `name = "idle"`, `name = "ask"`, 1), `toy.toml:17: screen.state[1].name: "ask" is named twice`},
		{"upper-case needs", strings.Replace(toy, "bottom = 1\n\n[[", "bottom = 1\nneeds = ['Run it']\n\n[[", 1), `screen.state[0].needs[0]: "Run it": needs are compared with the lower-cased screen`},
		{"approve is deny", strings.Replace(toy, `deny = ["n"]`, `deny = ["y"]`, 1), `toy.toml:24: keys.deny: the same keys as keys.approve`},
		{"no such key", strings.Replace(toy, `deny = ["n"]`, `deny = ["Escap e"]`, 1), `keys.deny[0]: "Escap e" is not a tmux key name`},
		{"plan keys, no plan", strings.Replace(toy, `deny = ["n"]`, "deny = [\"n\"]\nplan_approve = [\"2\"]", 1), `keys.plan_approve: no wait state with attention plan`},
		{"screen keys, no state", toy + "[keys.screens.pick]\napprove = [\"1\"]\n", `keys.screens.pick: no screen state "pick"`},
		{"submit on nothing", toy + "answer_submit = [\"1\"]\n", `keys.answer_submit: keys for the answers' confirmation, and keys.answer_submit_on names no state`},
		{"submit with no keys", toy + "answer_submit_on = \"idle\"\n", `keys.answer_submit_on: names the state that wants the answers confirmed, and keys.answer_submit gives no keys`},
		{"submit on no wait", toy + "answer_submit_on = \"idle\"\nanswer_submit = [\"1\"]\n", `keys.answer_submit_on: state "idle" is no wait`},
		{"a shell's name", strings.Replace(toy, `names = ["toy-agent"]`, `names = ["bash"]`, 1), `process.names[0]: "bash" is a shell, launcher or runtime`},
		{"upper-case name", strings.Replace(toy, `names = ["toy-agent"]`, `names = ["Toy"]`, 1), `toy.toml:5: process.names[0]: "Toy": processes are compared in lower case`},
		{"matches nothing", strings.Replace(toy, `names = ["toy-agent"]`, `names = []`, 1), `toy.toml:4: process: matches no process`},
		{"no process", strings.Replace(toy, "[process]\nnames = [\"toy-agent\"]\n", "", 1), `process: missing`},
		{"unsafe reply", toy + "unsafe_reply = '[/'\n", `toy.toml:25: keys.unsafe_reply: missing closing ]`},
		{"template", toy + "[commands]\nbin = \"toy\"\nspawn = \"{bin} \\\"{prompt}\\\"\"\n", `toy.toml:27: commands.spawn: template "{bin} \"{prompt}\"": at byte 6: double quote refused`},
		{"model flag", toy + "[commands]\nbin = \"toy\"\nmodel_flag = \"--model=\"\n", `commands.model_flag: "--model=" is not a plain option`},
		{"no name", strings.Replace(toy, `name = "Toy agent"`, ``, 1), `name: missing`},
		{"not utf-8", "id = \"toy\xff\"\n", `toy.toml: not UTF-8`},
		{"hooks of another", toy + "[hooks]\nagent = \"other\"\nprocesses = [\"toy\"]\n", `toy.toml:26: hooks.agent: "other", but the definition is "toy"`},
		{"hooks, no process", toy + "[hooks]\n", `toy.toml:25: hooks.processes: missing`},
		{"no such event", toy + "[hooks]\nprocesses = [\"toy\"]\nevents = { Ask = \"AskUser\" }\n", `toy.toml:27: hooks.events.Ask: "AskUser" is none of Claude's hook events`},
		{"no such notice", toy + "[hooks]\nprocesses = [\"toy\"]\nnotifications = { x = \"blocked\" }\n", `hooks.notifications.x: "blocked" is not permission, question, plan or idle`},
		{"install nowhere", toy + "[hooks]\nprocesses = [\"toy\"]\n[hooks.install]\nentries = [{ event = \"Stop\" }]\n", `toy.toml:27: hooks.install: dir (the config folder under HOME`},
		{"status line args", toy + "[hooks]\nprocesses = [\"toy\"]\n[hooks.install]\ndir = \".toy\"\nfile = \"settings.json\"\nentries = [{ event = \"Stop\" }]\nstatus_line = [\"statusLine\"]\nstatus_line_args = [\"--agent\", \"claude\"]\n",
			`toy.toml:32: hooks.install.status_line_args: leave it out: ag-hook statusline --agent toy is written`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := Check("/cfg/toy.toml", []byte(tc.edit), nil)
			var all []string
			for _, e := range errs {
				all = append(all, e.Error())
			}
			got := strings.Join(all, "\n")
			if !strings.Contains(got, tc.want) {
				t.Errorf("got:\n%s\nwant it to hold %q", got, tc.want)
			}
			for _, e := range errs {
				var de *Error
				if !errors.As(e, &de) || de.File != "/cfg/toy.toml" {
					t.Errorf("%v: not an *Error naming the file", e)
				}
			}
		})
	}
	if errs := Check("/cfg/toy.toml", []byte(toy), nil); len(errs) > 0 {
		t.Errorf("the toy itself is refused: %v", errs)
	}
}

// goAgent stands for an agent written in Go whose keys name a screen
// state.
type goAgent struct{}

func (goAgent) ID() string   { return "gopher" }
func (goAgent) Name() string { return "Gopher" }
func (goAgent) Keys() provider.KeyMap {
	return provider.KeyMap{Approve: []string{"1"}, Screens: map[string]provider.ScreenKeys{"plan-2": {Approve: []string{"2"}}}}
}
func (goAgent) PaneRules() panes.Rules { return panes.Rules{} }

func env(dir string) func(string) string {
	return func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	}
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	d := filepath.Join(dir, "ag", "agents")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoad: the user's definitions join the built-in ones after them; a
// file with a built-in's id replaces the sections it gives; one with a Go
// agent's id replaces its screen rules, and only if its keys still find
// their states; a refused file is left out, with its error.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "toy.toml", toy)
	write(t, dir, "broken.toml", "id = \"broken\"\n[process\n")
	write(t, dir, "notes.txt", "not a definition")
	// Continue's keys kept, its screen replaced by one whose states the
	// keys still find.
	cont, _ := builtin.Read("continue")
	screen := string(cont[strings.Index(string(cont), "[screen]"):strings.Index(string(cont), "[keys]")])
	write(t, dir, "continue.toml", "id = \"continue\"\n"+strings.Replace(screen, "lines = 40", "lines = 30", 1))
	write(t, dir, "gopher.toml", "id = \"gopher\"\n[screen]\n[[screen.state]]\nname = \"idle\"\nkind = \"idle\"\nanchor = '^> $'\n")
	s := Load(env(dir), []provider.Provider{goAgent{}})
	var ids []string
	for _, a := range s.Agents {
		ids = append(ids, a.ID())
	}
	// The built-ins in their order, then the user's own.
	if got, want := strings.Join(ids, " "), strings.Join(append(builtin.IDs(), "toy"), " "); got != want {
		t.Errorf("agents %q, want %q", got, want)
	}
	for _, a := range s.Agents {
		switch a.ID() {
		case "continue":
			if a.PaneRules().Lines != 30 || len(a.Keys().Approve) == 0 || a.Name() != "Continue CLI" {
				t.Errorf("continue: lines %d, keys %v, name %q: the override's screen, the built-in keys and name", a.PaneRules().Lines, a.Keys().Approve, a.Name())
			}
			if !strings.Contains(a.Source(), "over the built-in") {
				t.Errorf("continue's source %q", a.Source())
			}
		case "toy":
			if !a.PaneRules().Turns || a.ProcRules().Match("/x/toy-agent", []string{"toy-agent"}).OK != true {
				t.Errorf("toy: turns %v, its process not matched", a.PaneRules().Turns)
			}
		}
	}
	var msgs []string
	for _, e := range s.Errors {
		msgs = append(msgs, e.Error())
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "broken.toml:2: ") || !strings.Contains(all, `gopher.toml:2: screen: no state "plan-2": gopher's keys depend on it`) {
		t.Errorf("errors:\n%s", all)
	}
	if _, ok := s.Screens["gopher"]; ok {
		t.Error("gopher's screen replaced by a file its keys cannot use")
	}
	write(t, dir, "gopher.toml", "id = \"gopher\"\n[screen]\n[[screen.state]]\nname = \"plan-2\"\nkind = \"idle\"\nanchor = '^> $'\n")
	s = Load(env(dir), []provider.Provider{goAgent{}})
	if g, ok := s.Screens["gopher"]; !ok || g.Rules.Turns || len(g.Rules.States) != 1 {
		t.Errorf("gopher's screen: %+v, %v", g, s.Errors)
	}
	write(t, dir, "gopher.toml", "id = \"gopher\"\n[keys]\napprove = [\"1\"]\n")
	s = Load(env(dir), []provider.Provider{goAgent{}})
	if !slices.ContainsFunc(s.Errors, func(e error) bool {
		return strings.Contains(e.Error(), "gopher.toml:2: keys: gopher is one of ag's own agents")
	}) {
		t.Errorf("errors %v", s.Errors)
	}
}

// TestLines: every key of a document is found at its line, in arrays of
// tables, inline tables and arrays.
func TestLines(t *testing.T) {
	l := index([]byte(toy + "[keys.screens.ask]\napprove = [\n  \"1\",\n  \"2\",\n]\n"))
	for path, want := range map[string]int{
		"id": 1, "process.names": 5, "screen.state[0]": 8, "screen.state[0].anchor": 12,
		"screen.state[0].all[0].match": 13, "screen.state[1].name": 17, "keys.deny": 24,
		"keys.screens.ask.approve": 26, "keys.screens.ask.approve[1]": 28,
	} {
		if got := l.at(path); got != want {
			t.Errorf("%s at line %d, want %d", path, got, want)
		}
	}
}

// FuzzParse: whatever the bytes, Check returns errors or nothing, never
// panics, and an accepted definition classifies a screen.
func FuzzParse(f *testing.F) {
	f.Add([]byte(toy))
	cont, _ := builtin.Read("continue")
	f.Add(cont)
	f.Add([]byte("id = 'toy'\n[[screen.state]]\n[[screen.state.all]]\n"))
	f.Add([]byte("[keys.screens]\n'' = {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		errs := Check("toy.toml", data, []provider.Provider{goAgent{}})
		for _, e := range errs {
			if e == nil || e.Error() == "" {
				t.Fatalf("an empty error among %v", errs)
			}
		}
		if len(errs) == 0 {
			_, a, err := compileFile("toy.toml", data, nil)
			if err != nil {
				t.Fatalf("Check accepted what compileFile refuses: %v", err)
			}
			r := a.PaneRules()
			panes.ClassifyPane(&r, "title", "> \nRun it?\n[y] yes  [n] no\n")
		}
	})
}

// TestGoScreenBuiltIn: a built-in file named after an agent written in Go
// gives it its screen rules; the user's file for it comes first.
func TestGoScreenBuiltIn(t *testing.T) {
	files := map[string]string{
		"gopher": "id = \"gopher\"\n[screen]\n[[screen.state]]\nname = \"plan-2\"\nkind = \"idle\"\nanchor = '^built in$'\n",
	}
	read := func(id string) ([]byte, bool) { s, ok := files[id]; return []byte(s), ok }
	dir := t.TempDir()
	s := load(env(dir), []provider.Provider{goAgent{}}, []string{"gopher"}, read)
	g, ok := s.Screens["gopher"]
	if !ok || g.Source != "built in (builtin/gopher.toml)" || g.Rules.States[0].Anchor.String() != "^built in$" || len(s.Agents) != 0 {
		t.Fatalf("gopher: %+v, agents %d, errors %v", g, len(s.Agents), s.Errors)
	}
	write(t, dir, "gopher.toml", "id = \"gopher\"\n[screen]\n[[screen.state]]\nname = \"plan-2\"\nkind = \"idle\"\nanchor = '^mine$'\n")
	s = load(env(dir), []provider.Provider{goAgent{}}, []string{"gopher"}, read)
	if g := s.Screens["gopher"]; g.Rules.States[0].Anchor.String() != "^mine$" {
		t.Errorf("the user's file does not come first: %+v", g)
	}
}

// TestStatusLineDefined: a definition naming its agent's statusLine gets
// it wrapped by install, as `ag-hook statusline --agent ID`.
func TestStatusLineDefined(t *testing.T) {
	def := toy + "[hooks]\nprocesses = [\"toy\"]\n[hooks.install]\ndir = \".toy\"\nfile = \"settings.json\"\n" +
		"entries = [{ event = \"Stop\" }]\nstatus_line = [\"ui\", \"statusLine\"]\n"
	dir := t.TempDir()
	write(t, dir, "toy.toml", def)
	s := Load(env(dir), nil)
	if len(s.Errors) > 0 {
		t.Fatal(s.Errors)
	}
	i := slices.IndexFunc(s.Agents, func(a *Agent) bool { return a.ID() == "toy" })
	sl, ok := s.Agents[i].Provider().(provider.StatusLiner)
	if !ok {
		t.Fatalf("toy's provider %T wraps no status line", s.Agents[i].Provider())
	}
	home := t.TempDir()
	ie := provider.InstallEnv{Env: func(k string) string { return map[string]string{"HOME": home}[k] }, Hook: "/bin/ag-hook"}
	if _, err := sl.InstallStatusLine(ie); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(home, ".toy", "settings.json"))
	if err != nil || !strings.Contains(string(b), `"command": "'/bin/ag-hook' statusline --agent toy"`) {
		t.Errorf("settings.json: %s, %v", b, err)
	}
}
