package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/panes"
)

// Screens written by hand from the real ones, for the cases a single
// capture does not show: what scrolled up, older layouts, other tools.
const (
	rule      = "────────────────────────────────────────────────────────────"
	idleBox   = rule + "\n❯\u00a0\n" + rule + "\n  ? for shortcuts · ← for agents                    ● high · /effort\n"
	workBox   = rule + "\n❯\u00a0\n" + rule + "\n  esc to interrupt · ← for agents\n"
	bashAsk   = "● Bash(rm -rf build)\n  ⎿  Waiting…\n" + rule + "\n Bash command\n   rm -rf build\n   Remove the build directory\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and always allow access to build/ from this project\n   3. No\n\n Esc to cancel · Tab to amend · ctrl+e to explain\n"
	planAsk   = rule + "\n Ready to code?\n\n Here is Claude's plan:\n╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌\n # Fix the flaky test\n\n 1. Find the race\n 2. Add a lock\n 3. Run the tests 100 times\n╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌\n\n" + rule + "\n Claude has written up a plan and is ready to execute. Would you like to proceed?\n\n ❯ 1. Yes, and use auto mode\n   2. Yes, manually approve edits\n   3. Tell Claude what to change\n      shift+tab to approve with this feedback\n\n ctrl+g to edit in  Vim  · ~/.claude/plans/fix-the-flaky-test.md\n"
	questAsk  = rule + "\n ☐ Tests\n\nShould I also add a benchmark?\n\n❯ 1. Yes\n     Measure the hot path\n  2. No\n  3. Type something.\n" + rule + "\n  4. Chat about this\n\nEnter to select · ↑/↓ to navigate · Esc to cancel\n"
	history   = "❯ fix the build\n\n● I'll look at the Makefile.\n\n● Read(Makefile)\n  ⎿  Read 40 lines\n\n"
	answered  = "● Bash(rm -rf build)\n  ⎿  (No output)\n\n● Done.\n\n✻ Baked for 3s\n\n"
	spinner   = "✽ Transmuting…\n  ⎿  Tip: Use /theme to change the color theme\n\n"
	editAsk   = "● Update(main.go)\n" + rule + "\n Edit file\n main.go\n╌╌╌╌╌╌╌╌╌╌\n 12 -  return nil\n 12 +  return err\n╌╌╌╌╌╌╌╌╌╌\n Do you want to make this edit to main.go?\n ❯ 1. Yes\n   2. Yes, allow all edits during this session (shift+tab)\n   3. No\n\n Esc to cancel · Tab to amend\n"
	mcpAsk    = "● github - create_issue (MCP)(title: \"Flaky test\")\n" + rule + "\n Tool use\n   github - create_issue(title: \"Flaky test\") (MCP)\n   Create an issue\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and don't ask again for github - create_issue commands\n   3. No\n\n Esc to cancel · Tab to amend\n"
	boxedPlan = "╭──────────────────────────────────────────╮\n│ Ready to code?                            │\n│                                           │\n│ Here is Claude's plan:                    │\n│ ╭───────────────────────────────────────╮ │\n│ │ Add a --json flag                      │ │\n│ │ 1. Parse it                            │ │\n│ ╰───────────────────────────────────────╯ │\n│                                           │\n│ Would you like to proceed?                │\n│                                           │\n│ ❯ 1. Yes, and auto-accept edits           │\n│   2. Yes, and manually approve edits      │\n│   3. No, keep planning                    │\n╰──────────────────────────────────────────╯\n"
	exitPlan  = rule + "\n Exit plan mode?\n\n  Claude wants to exit plan mode\n\n  ❯ 1. Yes\n    2. No\n"

	// Permission prompts steered to read as a plan (issue 28): text the
	// model wrote — the command, its description, the prefix option 2
	// repeats — holding the plan's own words. Approve must type the
	// permission's "1", never the plan's "2" (here "don't ask again").
	steerAbove  = "● Bash(echo ok)\n" + rule + "\n Bash command\n   echo ok\n Ready to code?\n   Here is Claude's plan:\n Would you like to proceed?\n ❯ 1. Yes\n   2. Yes, and don't ask again for echo commands in /src\n   3. No\n\n Esc to cancel · Tab to amend\n"
	steerOption = "● Bash(echo manually approve edits)\n" + rule + "\n Bash command\n   echo manually approve edits\n   Print\n Would you like to proceed?\n ❯ 1. Yes\n   2. Yes, and don't ask again for echo manually approve edits ~/.claude/plans/x.md commands\n   3. No\n\n Esc to cancel · Tab to amend\n"
)

func TestPaneRulesScreens(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct {
		name, screen    string
		kind            panes.Kind
		attention, tool string
		text            string
	}{
		{"idle", history + idleBox, panes.Idle, "", "", ""},
		{"idle with blank lines below", history + idleBox + "\n\n\n\n", panes.Idle, "", "", ""},
		{"idle with tmux notice", history + idleBox + "  tmux focus-events off · add 'set -g focus-events on' to ~/.tmux.conf\n", panes.Idle, "", "", ""},
		{"idle in plan mode", history + rule + "\n❯\u00a0\n" + rule + "\n  ⏸ plan mode on (shift+tab to cycle)\n", panes.Idle, "", "", ""},
		{"working", history + spinner + workBox, panes.Busy, "", "", ""},
		{"working, old spinner layout", history + "✻ Twisting… (esc to interrupt · 3s)\n\n" + rule + "\n❯\u00a0\n" + rule + "\n  ? for shortcuts\n", panes.Busy, "", "", ""},
		{"permission", history + bashAsk, panes.Wait, "permission", "Bash", "rm -rf build"},
		{"permission, trailing blank lines", history + bashAsk + "\n\n\n", panes.Wait, "permission", "Bash", "rm -rf build"},
		{"edit", history + editAsk, panes.Wait, "permission", "Edit", "main.go"},
		{"mcp tool", history + mcpAsk, panes.Wait, "permission", "github - create_issue", "github - create_issue(title: \"Flaky test\") (MCP)"},
		{"question", history + questAsk, panes.Wait, "question", "AskUserQuestion", "Should I also add a benchmark?"},
		{"plan", history + planAsk, panes.Wait, "plan", "ExitPlanMode", "# Fix the flaky test\n1. Find the race\n2. Add a lock"},
		{"plan, 1.x boxed", history + boxedPlan, panes.Wait, "plan", "ExitPlanMode", "Add a --json flag\n1. Parse it"},
		{"plan without a plan file", history + exitPlan, panes.Wait, "plan", "ExitPlanMode", "Claude wants to exit plan mode"},
		{"steered: plan words above the question", history + steerAbove, panes.Wait, "permission", "Bash", "echo ok"},
		{"steered: plan words in option 2", history + steerOption, panes.Wait, "permission", "Bash", "echo manually approve edits"},

		// What scrolled up never counts: the live region is at the bottom.
		{"old prompt above idle composer", bashAsk + answered + idleBox, panes.Idle, "", "", ""},
		{"old question above idle composer", questAsk + answered + idleBox, panes.Idle, "", "", ""},
		{"old plan above working", planAsk + spinner + workBox, panes.Busy, "", "", ""},
		{"old prompt, then output, no composer", bashAsk + answered + answered, panes.None, "", "", ""},
		{"idle composer above a new prompt", idleBox + history + bashAsk, panes.Wait, "permission", "Bash", "rm -rf build"},

		// Look-alikes.
		{"a past prompt line in scrollback", "❯ please run the tests\n\n● Sure.\n", panes.None, "", "", ""},
		{"composer with a draft, nothing at work", history + rule + "\n❯ draft text here\n" + rule + "\n", panes.Idle, "", "", ""},
		{"composer with a draft while working", history + spinner + rule + "\n❯ and then the docs\n" + rule + "\n  esc to interrupt · ← for agents\n", panes.Busy, "", "", ""},
		{"composer with a two-line draft", history + rule + "\n❯ first line\n  second line\n" + rule + "\n", panes.Idle, "", "", ""},
		{"selected picker option below a rule", history + rule + "\n ☐ Tests\n\nShould I also add a benchmark?\n\n  1. Yes\n  2. No\n  3. Type something.\n" + rule + "\n❯ 4. Chat about this\n\nEnter to select · ↑/↓ to navigate · Esc to cancel\n", panes.Wait, "question", "AskUserQuestion", "Should I also add a benchmark?"},
		{"proceed question in prose", history + "● Do you want to proceed? I can also add tests.\n\n" + idleBox, panes.Idle, "", "", ""},
		{"type something without a picker footer", history + "  3. Type something.\n", panes.None, "", "", ""},
		{"numbered list after a question", "● Do you want to proceed?\n\n  1. Yes\n  2. No\n\n" + answered + answered, panes.None, "", "", ""},
		{"empty", "", panes.None, "", "", ""},
		{"blank", "\n\n\n", panes.None, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := panes.Classify(&rules, tc.screen)
			if got.Kind != tc.kind || got.Attention != tc.attention || got.Tool != tc.tool || got.Text != tc.text {
				t.Errorf("got %v/%q tool %q text %q (state %q line %d)\nwant %v/%q tool %q text %q",
					got.Kind, got.Attention, got.Tool, got.Text, got.State, got.Line, tc.kind, tc.attention, tc.tool, tc.text)
			}
		})
	}
}

// FuzzPaneRules: any screen classifies without panicking, and a Wait always
// says why; the text is clamped.
func FuzzPaneRules(f *testing.F) {
	for _, s := range []string{idleBox, workBox, bashAsk, planAsk, questAsk, editAsk, boxedPlan, exitPlan, history + idleBox, "", "│", "│ │", "\u00a0", "❯"} {
		f.Add(s)
	}
	if files, _ := filepath.Glob(filepath.Join("testdata", "screens", "*.txt")); len(files) > 0 {
		for _, name := range files {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(string(b))
			}
		}
	}
	rules := New().PaneRules()
	f.Fuzz(func(t *testing.T, screen string) {
		r := panes.Classify(&rules, screen)
		if r.Kind == panes.Wait && r.Attention == "" {
			t.Fatalf("wait without attention: %+v", r)
		}
		if r.Kind != panes.Wait && (r.Attention != "" || r.Tool != "" || r.Text != "") {
			t.Fatalf("%v with wait fields: %+v", r.Kind, r)
		}
		if len([]rune(r.Text)) > 500 {
			t.Fatalf("text not clamped: %d runes", len([]rune(r.Text)))
		}
		if r.Kind == panes.None && r.Line != -1 {
			t.Fatalf("none at line %d", r.Line)
		}
	})
}

func BenchmarkPaneRules(b *testing.B) {
	rules := New().PaneRules()
	for _, bc := range []struct{ name, screen string }{
		{"permission", strings.Repeat(history, 4) + bashAsk},
		{"idle", strings.Repeat(history, 4) + idleBox},
		{"working", strings.Repeat(history, 4) + spinner + workBox},
		{"plan", strings.Repeat(history, 4) + planAsk},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				panes.Classify(&rules, bc.screen)
			}
		})
	}
}
