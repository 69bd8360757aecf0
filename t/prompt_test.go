package t

// The prompt snippets in contrib/shell, sourced into real bash, zsh and
// fish running in tmux panes: the prompt the shell draws shows the pane's
// agent, follows the state file at each new prompt, keeps the prompt the
// user had, and with AG_PROMPT_ALL shows every agent.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestPromptSnippets(t *testing.T) {
	t.Parallel()
	shells := []struct {
		shell, argv string
		own         string // the user's own prompt, set before sourcing
		source      string
		all         string // turns AG_PROMPT_ALL on
		offPath     string // takes ag off PATH
		// The prompt line the first state gives; %d is a literal % and d
		// (a tool named so must not become the directory in zsh).
		want string
	}{
		{"bash", "bash --norc --noprofile", "PS1='P$ '", ". %s/ag.bash", "export AG_PROMPT_ALL=1", "PATH=/usr/bin:/bin",
			"[claude ⏳ mcp__db__query%d] P$"},
		{"zsh", "zsh -f", "PROMPT='P%% ' RPROMPT=R", "source %s/ag.zsh", "export AG_PROMPT_ALL=1", "PATH=/usr/bin:/bin",
			"P% claude ⏳ mcp__db__query%d R"},
		{"fish", "fish --no-config", "function fish_prompt; echo -n 'P> '; end; function fish_right_prompt; echo -n R; end", "source %s/ag.fish", "set -gx AG_PROMPT_ALL 1", "set -gx PATH /usr/bin /bin",
			"P> claude ⏳ mcp__db__query%d R"},
	}
	contrib, err := filepath.Abs("../contrib/shell")
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shells {
		t.Run(sh.shell, func(t *testing.T) {
			if _, err := exec.LookPath(sh.shell); err != nil {
				t.Skipf("no %s", sh.shell)
			}
			work := t.TempDir()
			env := []string{"AG_DIR=" + work, "HOME=" + work, "LANG=C.UTF-8", "PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH")}
			s := newTmux(t, env)
			s.run("set-option", "-g", "default-terminal", "screen")
			// No shell history: bash writes it on the hang-up at the end,
			// into the home being removed ("directory not empty", once in CI).
			s.run("new-window", "-d", "-t", "t:1", "-e", "AG_DIR="+work, "-e", "HOME="+work, "-e", "LANG=C.UTF-8",
				"-e", "HISTFILE=/dev/null", "-e", "fish_history=",
				"-e", "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), sh.argv)
			pane := s.run("display-message", "-p", "-t", "t:1", "#{pane_id}")
			tty := s.run("display-message", "-p", "-t", "t:1", "#{pane_tty}")
			writeStates(t, work,
				fmt.Sprintf(`"pane":%q,"tty":%q,"status":"waiting","attention":"permission","tool":"mcp__db__query%%d"`, pane, tty),
				`"pane":"%99","status":"done"`)

			s.waitPrompt(pane, func(l string) bool { return strings.TrimSpace(l) != "" })
			s.typeLine(pane, sh.own)
			s.typeLine(pane, fmt.Sprintf(sh.source, contrib))
			s.waitPrompt(pane, func(l string) bool { return squeeze(l) == sh.want })

			// Sourced again: still one segment. Each prompt reads the state anew.
			s.typeLine(pane, fmt.Sprintf(sh.source, contrib))
			writeStates(t, work, fmt.Sprintf(`"pane":%q,"tty":%q,"status":"working","tool":"Bash"`, pane, tty), `"pane":"%99","status":"done"`)
			s.typeLine(pane, "")
			want := strings.Replace(sh.want, "⏳ mcp__db__query%d", "⚙", 1)
			s.waitPrompt(pane, func(l string) bool { return squeeze(l) == want })

			// Every agent at once.
			s.typeLine(pane, sh.all)
			want = strings.Replace(sh.want, "claude ⏳ mcp__db__query%d", "⚙1 ✓1", 1)
			s.waitPrompt(pane, func(l string) bool { return squeeze(l) == want })

			// Nothing known: the user's prompt alone.
			writeStates(t, work)
			s.typeLine(pane, "")
			want = strings.Replace(strings.Replace(sh.want, "[claude ⏳ mcp__db__query%d] ", "", 1), " claude ⏳ mcp__db__query%d", "", 1)
			s.waitPrompt(pane, func(l string) bool { return squeeze(l) == want })

			// ag not on the shell's PATH (uninstalled, another machine's
			// dotfiles): the user's prompt alone, and not a word more.
			writeStates(t, work, fmt.Sprintf(`"pane":%q,"tty":%q,"status":"waiting","tool":"Bash"`, pane, tty))
			s.typeLine(pane, sh.offPath+"; clear")
			s.typeLine(pane, "")
			var screen string
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				screen = strings.TrimSpace(s.run("capture-pane", "-p", "-t", pane))
				if lines := strings.Split(screen, "\n"); len(lines) == 2 && squeeze(lines[0]) == want && squeeze(lines[1]) == want {
					break
				}
			}
			if lines := strings.Split(screen, "\n"); len(lines) != 2 || squeeze(lines[1]) != want {
				t.Errorf("with ag off PATH the shell says more than its prompt, twice:\n%s", screen)
			}
		})
	}
}

// writeStates writes ag-fold's state file with one claude session per
// member list.
func writeStates(t *testing.T, dir string, sessions ...string) {
	t.Helper()
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	var b strings.Builder
	// Kept by a running ag-fold (this test process stands in), as the
	// login pipeline keeps it: a file nobody keeps reads as stale.
	fmt.Fprintf(&b, "{\"v\":1,\"t\":%q,\"writer\":{\"pid\":%d},\"sessions\":[\n", now, os.Getpid())
	for i, m := range sessions {
		if i > 0 {
			b.WriteString(",\n")
		}
		if !strings.Contains(m, `"since":`) {
			m += fmt.Sprintf(`,"since":%q`, now)
		}
		fmt.Fprintf(&b, `{"v":1,"t":%q,"kind":"state","agent":"claude","session":"s%d","src":"fold",%s,"gen":1,"token":"1.1"}`, now, i, m)
	}
	b.WriteString("\n]}\n")
	tmp := filepath.Join(dir, "state.json.tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "state.json")); err != nil {
		t.Fatal(err)
	}
}

// typeLine types line and Enter into pane.
func (s *tserver) typeLine(pane, line string) {
	s.t.Helper()
	if line != "" {
		s.run("send-keys", "-t", pane, "-l", line)
	}
	s.run("send-keys", "-t", pane, "Enter")
}

// waitPrompt waits until the line the cursor is on satisfies ok (10 s).
func (s *tserver) waitPrompt(pane string, ok func(string) bool) {
	s.t.Helper()
	var line, screen string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(30 * time.Millisecond) {
		screen = s.run("capture-pane", "-p", "-t", pane)
		y, _ := strconv.Atoi(s.run("display-message", "-p", "-t", pane, "#{cursor_y}"))
		lines := strings.Split(screen, "\n")
		line = ""
		if y < len(lines) {
			line = lines[y]
		}
		if ok(line) {
			return
		}
	}
	s.t.Fatalf("pane %s: the prompt line is %q; screen:\n%s", pane, line, screen)
}

// squeeze is a screen line with its runs of blanks (the gap before a
// right prompt) made one.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }
