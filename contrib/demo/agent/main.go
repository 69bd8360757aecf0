// Command agent is make demo's stand-in for Claude Code: no model, no
// network, one turn. Built as "claude" (so ag-hook's walk to the agent and
// ag-keys' look at the pane find what they would find), it draws Claude
// Code 2.1.197's screens for that turn — a permission prompt for a command,
// or a question picker — runs ag-hook with the payload Claude's hooks send
// at each step, and takes the keys Claude takes there: on the permission
// prompt 1 or 2 (yes), 3 or Escape (no); on the question an option's digit,
// or the digit of "Type something.", the text and Enter; Escape (no). A
// "no" is what Claude writes in its transcript: a rejected tool result.
//
//	claude -payloads DIR -before 'claude:a.json statusline:m.json' \
//	  -wait claude:perm.json -after 'claude:post.json claude:stop.json' \
//	  -prompt TEXT (-command CMD | -question TEXT -options A,B) \
//	  -transcript FILE -session ID
//
// Every key it reads is also appended to -keys FILE, for the test that
// checks what reached the pane.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

type agent struct {
	payloads, before, wait, after string
	prompt, command, question     string
	options                       []string
	transcript, session, keysLog  string
	lines                         []string // what the screen shows above the prompt box
	typing                        bool     // on the question's "Type something." row
	typed                         string
}

func main() {
	a := &agent{}
	var options string
	flag.StringVar(&a.payloads, "payloads", "", "the folder of hook payloads")
	flag.StringVar(&a.before, "before", "", "HOOK:FILE … run before the wait")
	flag.StringVar(&a.wait, "wait", "", "HOOK:FILE run as the prompt comes up")
	flag.StringVar(&a.after, "after", "", "HOOK:FILE … run once answered yes")
	flag.StringVar(&a.prompt, "prompt", "", "the user's prompt")
	flag.StringVar(&a.command, "command", "", "the command to ask permission for")
	flag.StringVar(&a.question, "question", "", "the question to ask")
	flag.StringVar(&options, "options", "Yes,No", "the question's options")
	flag.StringVar(&a.transcript, "transcript", "", "the session's transcript")
	flag.StringVar(&a.session, "session", "", "the session id")
	flag.StringVar(&a.keysLog, "keys", "", "append every key read here")
	flag.Parse()
	a.options = strings.Split(options, ",")
	// Keys one at a time, not echoed: Claude reads its terminal raw.
	stty := exec.Command("stty", "-icanon", "-echo", "min", "1")
	stty.Stdin = os.Stdin
	stty.Run()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP, syscall.SIGTERM)
	go func() { <-hup; os.Exit(0) }()
	a.run()
}

func (a *agent) run() {
	a.draw(nil, "")
	a.hooks(a.before)
	a.lines = append(a.lines, "❯ "+a.prompt, "")
	tool := "Bash"
	if a.question != "" {
		tool = "AskUserQuestion"
		a.lines = append(a.lines, "● I need one answer before I go on.", "")
	} else {
		a.lines = append(a.lines, "● Bash("+a.command+")", "  ⎿  Waiting…", "")
	}
	a.log(fmt.Sprintf(`{"type":"assistant","message":{"model":"claude-opus-4-8","id":"msg_demo","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_demo","name":%q,"input":{}}],"stop_reason":"tool_use"}`, tool))
	a.draw(a.box(), "")
	a.hooks(a.wait)
	keys := a.keys()
	if a.question != "" {
		a.ask(keys)
	} else {
		a.permit(keys)
	}
	for range keys { // the turn is over: the composer takes no more here
	}
}

// permit answers the permission prompt.
func (a *agent) permit(keys <-chan string) {
	for k := range keys {
		switch k {
		case "1", "2":
			a.lines = a.lines[:len(a.lines)-2]
			a.lines = append(a.lines, "  ⎿  Running…", "")
			a.draw(nil, "esc to interrupt")
			time.Sleep(1500 * time.Millisecond) // the command runs
			a.lines = a.lines[:len(a.lines)-2]
			a.lines = append(a.lines, "  ⎿  build/ removed; release built in 12.4s", "",
				"● The release build passes now.", "")
			a.hooks(a.after)
			a.draw(nil, "? for shortcuts")
			return
		case "3", "esc":
			a.no()
			return
		}
	}
}

// ask answers the question picker.
func (a *agent) ask(keys <-chan string) {
	other := fmt.Sprint(len(a.options) + 1) // "Type something."
	for k := range keys {
		switch {
		case k == "esc":
			a.no()
			return
		case k == other:
			// The row takes typed text; Enter submits it.
			a.typing = true
			a.draw(a.box(), "")
			for k := range keys {
				if k == "enter" {
					break
				}
				if len([]rune(k)) == 1 {
					a.typed += k
					a.draw(a.box(), "")
				}
			}
			a.answered(a.typed)
			return
		case len(k) == 1 && k >= "1" && k < other:
			a.answered(a.options[k[0]-'1'])
			return
		}
	}
}

func (a *agent) answered(answer string) {
	a.lines = append(a.lines, "● User answered: "+a.question+" → "+answer, "")
	a.hooks(a.after)
	a.draw(nil, "? for shortcuts")
}

// no is Escape (or "No") on the prompt: the tool does not run, and Claude
// writes the rejected tool result (no hook reports it).
func (a *agent) no() {
	a.log(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_demo","content":"The user doesn't want to proceed with this tool use. The tool use was rejected.","is_error":true}]},"toolUseResult":"User rejected tool use"}`)
	a.lines = append(a.lines, "  ⎿  Interrupted · What should Claude do instead?", "")
	a.draw(nil, "? for shortcuts")
}

// box is the prompt at the bottom of the screen, as Claude draws it.
func (a *agent) box() []string {
	if a.question != "" {
		out := []string{" ☐ Question", a.question}
		for i, o := range a.options {
			cur := "  "
			if i == 0 && !a.typing {
				cur = "❯ "
			}
			out = append(out, fmt.Sprintf("%s%d. %s", cur, i+1, o))
		}
		last := fmt.Sprintf("  %d. Type something.", len(a.options)+1)
		if a.typing {
			last = fmt.Sprintf("❯ %d. %s", len(a.options)+1, a.typed)
		}
		foot := "Enter to select · ↑/↓ to navigate · Esc to cancel"
		if a.width() < 52 { // as Claude, a line that fits
			foot = "Enter to select · Esc to cancel"
		}
		return append(out, last, "", foot)
	}
	return []string{" Bash command", "", "   " + a.command, "", " Do you want to proceed?",
		" ❯ 1. Yes", "   2. Yes, and don't ask again this session", "   3. No", "",
		" Esc to cancel · Tab to amend"}
}

// draw clears the screen and draws the banner, the lines so far and either
// a prompt box or the composer with footer.
func (a *agent) draw(box []string, footer string) {
	rule := strings.Repeat("─", a.width())
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J")
	cwd, _ := os.Getwd()
	for _, l := range []string{" ▐▛███▜▌   Claude Code v2.1.197 (ag demo)", "▝▜█████▛▘  Opus 4.8 · no model, no network", "  ▘▘ ▝▝    " + cwd, ""} {
		b.WriteString(l + "\r\n")
	}
	for _, l := range a.lines {
		b.WriteString(l + "\r\n")
	}
	b.WriteString(rule + "\r\n")
	if box != nil {
		for _, l := range box {
			b.WriteString(l + "\r\n")
		}
	} else if footer != "" {
		b.WriteString("❯ \r\n" + rule + "\r\n  " + footer + "\r\n")
	}
	io.WriteString(os.Stdout, b.String())
}

// width is the terminal's.
func (a *agent) width() int {
	if ws, err := unix.IoctlGetWinsize(int(os.Stdout.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
		return int(ws.Col)
	}
	return 80
}

// hooks runs ag-hook for each HOOK:FILE of list, as Claude's hooks run it
// (its child, in its terminal, the payload on stdin).
func (a *agent) hooks(list string) {
	for _, h := range strings.Fields(list) {
		kind, file, _ := strings.Cut(h, ":")
		f, err := os.Open(filepath.Join(a.payloads, file))
		if err != nil {
			continue
		}
		cmd := exec.Command("ag-hook", kind)
		cmd.Stdin = f
		cmd.Run()
		f.Close()
		time.Sleep(200 * time.Millisecond)
	}
}

// log appends one line to the transcript, with what every line carries.
func (a *agent) log(line string) {
	if a.transcript == "" {
		return
	}
	var m map[string]any
	if json.Unmarshal([]byte(line), &m) != nil {
		return
	}
	cwd, _ := os.Getwd()
	m["sessionId"], m["cwd"], m["version"] = a.session, cwd, "2.1.197"
	m["uuid"] = fmt.Sprintf("demo-%d", time.Now().UnixNano())
	m["timestamp"] = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	b, _ := json.Marshal(m)
	f, err := os.OpenFile(a.transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	f.Write(append(b, '\n'))
	f.Close()
}

// keys reads the terminal: a key a string ("1", "esc", "enter", a
// character), each also appended to -keys.
func (a *agent) keys() <-chan string {
	out := make(chan string)
	raw := make(chan byte)
	go func() {
		r := bufio.NewReader(os.Stdin)
		for {
			c, err := r.ReadByte()
			if err != nil {
				close(raw)
				return
			}
			raw <- c
		}
	}()
	go func() {
		defer close(out)
		var pending []byte
		for {
			c, ok := <-raw
			if !ok {
				return
			}
			var k string
			switch {
			case c == 0x1b:
				// Escape alone, or the start of an arrow key's sequence.
				select {
				case c2, ok := <-raw:
					if !ok {
						return
					}
					if c2 == '[' || c2 == 'O' {
						<-raw
					}
					continue
				case <-time.After(50 * time.Millisecond):
					k = "esc"
				}
			case c == '\r' || c == '\n':
				k = "enter"
			case c >= 0x80:
				pending = append(pending, c)
				if !utf8Full(pending) {
					continue
				}
				k, pending = string(pending), nil
			default:
				k = string(c)
			}
			if a.keysLog != "" {
				if f, err := os.OpenFile(a.keysLog, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
					fmt.Fprintln(f, k)
					f.Close()
				}
			}
			out <- k
		}
	}()
	return out
}

// utf8Full reports whether b holds a whole UTF-8 character.
func utf8Full(b []byte) bool {
	n := 2
	switch {
	case b[0]&0xf0 == 0xf0:
		n = 4
	case b[0]&0xe0 == 0xe0:
		n = 3
	}
	return len(b) >= n
}
