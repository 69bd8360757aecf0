package t

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// optionCase is one agent's question: what it tells ag (hook payloads, or
// nothing but its screen), the screen its pane shows, the option pressed
// and the bytes the agent must read for it.
type optionCase struct {
	name   string
	agent  string   // the agent's id (and the fake agent's program name)
	hook   []string // ag-hook's arguments; nil: the screen alone (ag-detect)
	input  []string // one ag-hook run each ("pid":PID, "t":NOW: the agent's pid, now)
	screen string   // a recorded screen, under ../providers
	title  string   // the notification's summary
	want   []string // the options, in the state and on the buttons
	press  int      // the option pressed, from 1
	typed  string   // what the agent reads
}

// TestOptionButtons: for every agent whose question has options, its real
// payloads (or, with no event naming options, its real screen read by
// ag-detect) → the options in the wait → the state → one D-Bus button
// each → a press → ag-keys typing that option's keys into the real tmux
// pane showing the agent's recorded picker, which reads them.
func TestOptionButtons(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	const down, enter = "\x1b[B", "\r"
	claudePre := `{"session_id":"c1","transcript_path":"/h/.claude/projects/-w/c1.jsonl","cwd":"/w","prompt_id":"p1","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_q","tool_input":{"questions":[{"question":"Which language should the example use?","header":"Language","options":[{"label":"Go","description":"Fast compile"},{"label":"Python","description":"Quick scripts"}],"multiSelect":false}]}}`
	claudeAsk := strings.Replace(strings.Replace(claudePre, `"PreToolUse"`, `"PermissionRequest"`, 1), `,"tool_use_id":"toolu_q"`, "", 1)
	for _, tc := range []optionCase{
		{name: "claude", agent: "claude", hook: []string{"claude"}, input: []string{claudePre, claudeAsk},
			screen: "claude/testdata/screens/question-picker.txt", title: "Claude Code", want: []string{"Go", "Python"}, press: 2, typed: "2"},
		{name: "gemini", agent: "gemini", hook: []string{"gemini"},
			input:  recorded(t, "gemini/geminihook/testdata/gemini-0.61.0-waits.jsonl", 3, 4),
			screen: "gemini/testdata/screens/question.txt", title: "Gemini CLI", want: []string{"Blue", "Green"}, press: 2, typed: "2"},
		{name: "copilot", agent: "copilot", hook: []string{"copilot", "preToolUse"},
			input:  []string{payloadOf(recorded(t, "copilot/copilothook/testdata/hooks-1.0.102.jsonl", 22)[0])},
			screen: "copilot/testdata/screens/question.txt", title: "Copilot CLI", want: []string{"postgres", "sqlite"}, press: 2, typed: down + enter},
		{name: "omp", agent: "omp", hook: []string{"omp"},
			input:  []string{`{"t":NOW,"pid":PID,"type":"tool_execution_start","session":"o1","cwd":"/w","toolCallId":"call_1","toolName":"ask","text":"Which colour?","options":["Blue","Green","Red"]}`},
			screen: "omp/testdata/screens/ask.txt", title: "omp", want: []string{"Blue", "Green", "Red"}, press: 3, typed: down + down + enter},
		{name: "opencode", agent: "opencode", hook: []string{"opencode"},
			input:  []string{`{"t":NOW,"pid":PID,"event":{"type":"question.asked","properties":{"id":"que_1","sessionID":"ses_1","questions":[{"question":"Which file first?","header":"File","options":[{"label":"a.go","description":"the first"},{"label":"b.go","description":"the second"}]}],"tool":{"messageID":"msg_1","callID":"call_q"}}}}`},
			screen: "opencode/testdata/screens/question.txt", title: "OpenCode", want: []string{"a.go", "b.go"}, press: 2, typed: "2"},
		{name: "qwen", agent: "qwen", hook: []string{"qwen"},
			input:  recorded(t, "qwen/qwenhook/testdata/hooks.ndjson", 12, 13),
			screen: "qwen/testdata/screens/question.txt", title: "Qwen Code", want: []string{"Blue", "Green"}, press: 2, typed: "2"},
		{name: "droid", agent: "droid", hook: []string{"droid"},
			input:  []string{`{"session_id":"d1","transcript_path":"/h/.factory/sessions/d1.jsonl","cwd":"/w","permission_mode":"off","hook_event_name":"PreToolUse","tool_name":"AskUser","tool_use_id":"call_q","tool_input":{"questionnaire":"1. [question] Which colour\n[topic] Colour\n[option] Blue\n[option] Green"}}`},
			screen: "droid/testdata/screens/question.txt", title: "Factory Droid", want: []string{"Blue", "Green"}, press: 2, typed: "2"},
		{name: "kilo", agent: "kilo", hook: []string{"kilo"},
			input:  []string{`{"t":NOW,"pid":PID,"event":{"type":"question.asked","properties":{"id":"que_1","sessionID":"ses_k","questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"Blue","description":"the sky"},{"label":"Green","description":"grass"}]}],"tool":{"messageID":"msg_1","callID":"call_q"}}}}`},
			screen: "kilo/testdata/screens/question.txt", title: "Kilo CLI", want: []string{"Blue", "Green"}, press: 2, typed: "2"},
		{name: "cline", agent: "cline", hook: []string{"cline", "PreToolUse"},
			input:  []string{payloadOf(recorded(t, "cline/clinehook/testdata/hooks-3.0.65.jsonl", 20)[0])},
			screen: "cline/testdata/screens/question.txt", title: "Cline CLI", want: []string{"Blue", "Green"}, press: 2, typed: down + enter},
		// No event names options: the pane's picker, read by ag-detect.
		{name: "claude, the screen alone", agent: "claude",
			screen: "claude/testdata/screens/question-picker.txt", title: "Claude Code", want: []string{"Go", "Python"}, press: 1, typed: "1"},
		{name: "gemini, the screen alone", agent: "gemini",
			screen: "gemini/testdata/screens/question.txt", title: "Gemini CLI", want: []string{"Blue", "Green"}, press: 1, typed: "1"},
		{name: "copilot, the screen alone", agent: "copilot",
			screen: "copilot/testdata/screens/question.txt", title: "Copilot CLI", want: []string{"postgres", "sqlite"}, press: 2, typed: down + enter},
		{name: "omp, the screen alone", agent: "omp",
			screen: "omp/testdata/screens/ask.txt", title: "omp", want: []string{"Blue", "Green", "Red"}, press: 2, typed: down + enter},
		{name: "opencode, the screen alone", agent: "opencode",
			screen: "opencode/testdata/screens/question.txt", title: "OpenCode", want: []string{"a.go", "b.go"}, press: 2, typed: "2"},
		// Kimi's answer goes to a review the fake never shows: its digit
		// typed, the review's Submit left (the answer says so).
		{name: "kimi, the screen alone", agent: "kimi",
			screen: "agentdef/testdata/screens/kimi/question.txt", title: "Kimi Code", want: []string{"Blue", "Green"}, press: 2, typed: "2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t)
		})
	}
}

func (tc optionCase) run(t *testing.T) {
	h := newFakeHost(t, "opt")
	n := newNotifications(t, h)
	// The fake agent: a copy of cat named as the agent (so ag-detect
	// finds it and ag-keys sees no shell in front), showing the screen,
	// then reading its terminal raw into a file.
	bin := filepath.Join(h.dir, "bin")
	os.MkdirAll(bin, 0o755)
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(cat); err != nil || os.WriteFile(filepath.Join(bin, tc.agent), b, 0o755) != nil {
		t.Fatalf("copying cat: %v", err)
	}
	screen, err := filepath.Abs(filepath.Join("..", "providers", tc.screen))
	if err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(h.dir, "typed")
	ids := strings.Fields(h.tmux("new-session", "-d", "-s", "agent", "-x", "200", "-y", "60", "-P", "-F", "#{pane_id} #{pane_pid}",
		"sh", "-c", `cat "$1" && touch "$2.shown" && stty raw -echo && exec "$3" > "$2"`, "sh", screen, got, filepath.Join(bin, tc.agent)))
	pane, pid := ids[0], ids[1]
	eventually(t, "the screen shown", func() (bool, string) {
		_, err := os.Stat(got + ".shown")
		return err == nil, h.screen()
	})

	feed := "ag-tail --follow"
	if tc.hook == nil {
		feed = "{ ag-tail --follow & exec ag-detect --watch --all --panes --interval 100ms; }"
	}
	h.bg("pipeline", "sh", "-c", feed+" | ag-fold | ag-notify --backend dbus --cooldown 0s --max-age 0 | ag-keys > keys.ndjson")
	for _, in := range tc.input {
		c := h.cmd(filepath.Join(binDir, "ag-hook"), tc.hook...)
		c.Env = append(c.Env, "TMUX_PANE="+pane)
		// A plugin's line names the agent's pid: the pane's.
		in = strings.NewReplacer(`"pid":PID`, `"pid":`+pid, `"t":NOW`, `"t":`+strconv.FormatInt(time.Now().UnixMilli(), 10)).Replace(in)
		c.Stdin = strings.NewReader(in)
		// Gemini's hooks answer {}; the others nothing.
		if out, err := c.CombinedOutput(); err != nil || len(bytes.TrimPrefix(out, []byte("{}"))) > 0 {
			t.Fatalf("ag-hook %v: %v %s", tc.hook, err, out)
		}
	}

	// The state: waiting on the question, with its options.
	var st event.Event
	eventually(t, "a question's state with options", func() (bool, string) {
		for _, s := range h.states() {
			if s.Pane == pane && s.Status == event.StatusWaiting && s.Attention == event.AttnQuestion && len(s.Options) > 0 {
				st = s
				return true, ""
			}
		}
		return false, h.log("pipeline") + strings.Join(stateLines(h), "\n")
	})
	if !slices.Equal(st.Options, tc.want) {
		t.Errorf("state options %q, want %q", st.Options, tc.want)
	}
	// The notification: a button per option (three at most), then press.
	note := n.find(tc.title, "")
	var want []string
	for i, o := range tc.want[:min(len(tc.want), 3)] {
		want = append(want, "option-"+strconv.Itoa(i+1), o)
	}
	if i := slices.Index(note.Actions, "option-1"); i < 0 || !slices.Equal(note.Actions[i:min(i+len(want), len(note.Actions))], want) {
		t.Fatalf("the notification's actions %q, want %q among them", note.Actions, want)
	}
	n.press(note.ID, "option-"+strconv.Itoa(tc.press))
	eventually(t, "the option's keys read by the agent", func() (bool, string) {
		b, _ := os.ReadFile(got)
		return string(b) == tc.typed, hex.EncodeToString(b) + "\n" + keysLog(h)
	})
	// ag-keys writes its keys event once the keys are typed.
	eventually(t, "ag-keys' answer sent", func() (bool, string) {
		k := keysLog(h)
		return strings.Contains(k, `"status":"sent","action":"answer"`), k
	})
}

// recorded are lines (from 1) of a provider's recorded payloads.
func recorded(t *testing.T, file string, lines ...int) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "providers", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var all []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		all = append(all, sc.Text())
	}
	var out []string
	for _, n := range lines {
		out = append(out, all[n-1])
	}
	return out
}

// payloadOf is the payload of a recorded {"hook":…,"payload":…} line
// (Copilot's, Cline's).
func payloadOf(line string) string {
	i := strings.Index(line, `"payload":`)
	return strings.TrimSuffix(line[i+len(`"payload":`):], "}")
}

func keysLog(h *fakeHost) string {
	b, _ := os.ReadFile(filepath.Join(h.dir, "keys.ndjson"))
	return string(bytes.TrimSpace(b))
}

func stateLines(h *fakeHost) []string {
	var out []string
	for _, s := range h.states() {
		out = append(out, string(event.Marshal(&s)))
	}
	return out
}
