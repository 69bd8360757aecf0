package agentdef

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/panes"
)

var update = flag.Bool("update", false, "rewrite testdata/screens/*.golden")

// builtins loads the built-in definitions only: the developer's own
// folder must not change what the tests see.
func builtins(t testing.TB) []*Agent {
	t.Helper()
	s := Load(func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return t.TempDir()
		}
		return ""
	}, nil)
	for _, err := range s.Errors {
		t.Errorf("built-in definition refused: %v", err)
	}
	return s.Agents
}

// processOnly is a built-in definition with no screen rules: an agent ag
// can name in a pane but whose screens it does not read. Its file must say
// it is unverified, and it has no screens to hold to a golden file.
func processOnly(t *testing.T, a *Agent) bool {
	t.Helper()
	rules := a.PaneRules()
	if len(rules.States)+len(rules.Titles) > 0 {
		return false
	}
	if !strings.HasPrefix(a.Checked(), "unverified") {
		t.Errorf("%s: no screen rules, and checked = %q does not say it is unverified", a.ID(), a.Checked())
	}
	for _, f := range []string{a.ID(), a.ID() + ".golden"} {
		if _, err := os.Stat(filepath.Join("testdata", "screens", f)); err == nil {
			t.Errorf("%s: no screen rules, but testdata/screens/%s is there", a.ID(), f)
		}
	}
	return true
}

// recorded is one screen of testdata/screens/<id>/: NAME.txt, captured
// with `tmux capture-pane -p`, and NAME.title, the pane's title then, if
// the agent sets one.
type recorded struct {
	name, title, text string
}

func screensOf(t testing.TB, id string) []recorded {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "screens", id, "*.txt"))
	var out []recorded
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		title, _ := os.ReadFile(strings.TrimSuffix(f, ".txt") + ".title")
		out = append(out, recorded{filepath.Base(f), strings.TrimSpace(string(title)), string(text)})
	}
	return out
}

func describe(r panes.Result) string {
	if r.Kind == panes.None {
		return "none"
	}
	s := r.Kind.String()
	if r.Attention != "" {
		s += " " + r.Attention
	}
	if r.Title {
		s += fmt.Sprintf(" (title state %s)", r.State)
	} else {
		s += fmt.Sprintf(" (state %s, line %d)", r.State, r.Line)
	}
	if r.Tool != "" {
		s += fmt.Sprintf(" tool %q", r.Tool)
	}
	if r.Text != "" {
		s += fmt.Sprintf(" text %q", r.Text)
	}
	if p := r.Picker; p != nil {
		s += fmt.Sprintf(" rows %q at %d, %d down to the answer row", p.Labels, p.At, p.Down)
	}
	return s
}

// TestScreens runs every built-in definition over its recorded screens
// and holds the results to testdata/screens/<id>.golden (go test -update
// writes it). Adding an agent's screens adds them here: no code.
func TestScreens(t *testing.T) {
	for _, a := range builtins(t) {
		t.Run(a.ID(), func(t *testing.T) {
			if processOnly(t, a) {
				return
			}
			rules := a.PaneRules()
			var b strings.Builder
			km := a.Keys()
			for _, sc := range screensOf(t, a.ID()) {
				r := panes.ClassifyPane(&rules, sc.title, sc.text)
				fmt.Fprintf(&b, "%s: %s", sc.name, describe(r))
				// The options ag-detect reads there: a question's buttons.
				if o := keyplan.Options(km, &r); len(o) > 0 {
					fmt.Fprintf(&b, " options %q", o)
				}
				b.WriteString("\n")
			}
			golden := filepath.Join("testdata", "screens", a.ID()+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("results differ from %s (go test -update rewrites it):\n got:\n%s\nwant:\n%s", golden, b.String(), want)
			}
		})
	}
}

// TestScreensCover: every state of every built-in definition is what one
// of its recorded screens shows, and each has at least one recorded screen
// where the agent quotes its own prompt (quoted-*.txt). A rule no recorded
// screen proves is a guess.
func TestScreensCover(t *testing.T) {
	for _, a := range builtins(t) {
		if processOnly(t, a) {
			continue
		}
		rules := a.PaneRules()
		seen := map[string]bool{}
		quoted := 0
		for _, sc := range screensOf(t, a.ID()) {
			seen[panes.ClassifyPane(&rules, sc.title, sc.text).State] = true
			if strings.HasPrefix(sc.name, "quoted") {
				quoted++
			}
		}
		for _, st := range rules.States {
			if !seen[st.Name] && !st.Aside {
				t.Errorf("%s: no screen in testdata/screens/%s shows state %q", a.ID(), a.ID(), st.Name)
			}
		}
		for _, ti := range rules.Titles {
			if !seen[ti.Name] {
				t.Errorf("%s: no screen in testdata/screens/%s (its .title) shows title state %q", a.ID(), a.ID(), ti.Name)
			}
		}
		if quoted == 0 {
			t.Errorf("%s: no testdata/screens/%s/quoted-*.txt: record the agent quoting its own prompt's text", a.ID(), a.ID())
		}
	}
}

// TestQuotedPrompts: no false waits from prose. An agent that quotes its
// own dialog in a reply — recorded (quoted-*.txt), and made here from each
// recorded wait: its dialog's lines pasted, as they are and indented as a
// reply is, into the conversation above each screen that is no wait — is
// never waiting. A definition with no screen rules reads nothing, so none
// can wait (processOnly).
func TestQuotedPrompts(t *testing.T) {
	for _, a := range builtins(t) {
		if processOnly(t, a) {
			continue
		}
		rules := a.PaneRules()
		var waits, others []recorded
		for _, sc := range screensOf(t, a.ID()) {
			r := panes.ClassifyPane(&rules, sc.title, sc.text)
			switch {
			case strings.HasPrefix(sc.name, "quoted"):
				if r.Kind == panes.Wait {
					t.Errorf("%s/%s: the agent quoting its prompt reads as %s", a.ID(), sc.name, describe(r))
				}
			case r.Kind == panes.Wait:
				waits = append(waits, sc)
			default:
				others = append(others, sc)
			}
		}
		if len(waits) == 0 || len(others) == 0 {
			t.Errorf("%s: record at least one wait and one other screen", a.ID())
		}
		for _, w := range waits {
			dialog := panes.Lines(w.text, 16)
			for _, o := range others {
				for _, indent := range []string{"", "  ", "● "} {
					var b strings.Builder
					for _, l := range dialog {
						b.WriteString(indent + l + "\n")
					}
					b.WriteString(o.text)
					r := panes.ClassifyPane(&rules, o.title, b.String())
					if r.Kind == panes.Wait {
						t.Errorf("%s: %s's dialog quoted (indent %q) above %s reads as %s", a.ID(), w.name, indent, o.name, describe(r))
					}
				}
			}
		}
	}
}

// TestBuiltinKeys: every built-in's keys refuse what they must and name
// only states its screen has (Load checks this; the test keeps it so).
func TestBuiltinKeys(t *testing.T) {
	for _, a := range builtins(t) {
		km := a.Keys()
		if km.UnsafeReply != nil && km.UnsafeReply("hello") != "" {
			t.Errorf("%s refuses a plain reply", a.ID())
		}
		names := []string{}
		for _, st := range a.PaneRules().States {
			names = append(names, st.Name)
		}
		for _, f := range km.Fields {
			if !slices.Contains(names, f) {
				t.Errorf("%s: field %q is no state", a.ID(), f)
			}
		}
	}
}
