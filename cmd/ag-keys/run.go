package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/cmd/internal/evfilter"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/filters/sign"
	"github.com/agwatch/ag/filters/tmux"
	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/provider"
)

const long = `ag-keys answers an agent by typing into its tmux pane, and builds the
command lines that resume, spawn and fork agents.

Actions (one word, then --pane):
  approve        permission wait: allow once; on a plan wait, the plan approve
  deny           permission wait: refuse; on a plan wait, the plan deny
  plan-approve   plan wait only (Claude: "2", never "1", which is auto mode)
  plan-deny      plan wait only
  reply TEXT     permission/plan wait: the agent's prelude (Claude: Escape,
                 so a deny with feedback) then TEXT; question: as answer;
                 done/idle/failed: TEXT at the composer, no prelude
  answer TEXT    question wait: prelude (Claude: Escape), settle, TEXT

An action is refused (exit 1) when --token no longer matches the session's
state, the agent is not waiting for that kind of answer, the pane's
foreground process is a shell (or an editor or pager), or the text is unsafe
for the agent. On a wait the pane is read at press time with the agent's
screen rules: a permission state whose pane shows a plan approval is
answered as a plan, one showing a question picker takes only an answer or
reply, and a pane showing the idle composer or a working spinner refuses. Text is
made one line, control characters stripped, capped at 2000 characters; a
leading / or ! gets one space in front for Claude (its composer would read
a command or shell mode). Enter follows the text by 150 ms.

With no word, ag-keys reads action events (from ag-notify) on stdin and
performs each; each must quote the state's token. Every action writes one
"keys" event: status sent, refused or error, the reason, and in text what
was typed.

Hosts: ag-keys acts only on actions that name its host ($AG_HOST, else the
system's host name) or none; another host's are skipped without a word
(over a broker every host hears every action). The same action (its id;
under --verify its signature) is performed once, across restarts too
(keys-done beside the state file): MQTT QoS 1 may deliver it twice.

Signed actions, for actions that crossed a network:
  keygen FILE     write a new random key to FILE (0600, never over a file)
  sign FILE       sign the action events on stdin (--host for those that
                  name none), pass other lines through
  --verify FILE   obey only actions signed with that key, for this host, at
                  most --window old (or ahead), not performed before; refuse
                  the rest with a keys event saying why (exit 1 on argv,
                  which carries no signature). A key file that group or
                  others may read is refused.

Commands:
  focus           select --pane's window and pane (with --client, switch that
                  client to it); with --next-waiting, the next pane after
                  --pane whose session waits, cycling; exit 1 when none waits;
                  with --choose, a tmux menu of every agent session, most
                  urgent first: picking one focuses its pane
  resume          type the agent's resume command into --pane, which must be
                  at a POSIX shell (the session comes from the state file, or
                  --agent/--session)
  resume-command  print the resume command for --agent and --session
  spawn           print the command that starts --agent with --prompt already
                  submitted (or, with --fork SESSION, a fork of that session's
                  history); with --pane, type it into that shell pane

Command lines start with "command " (no alias or function of the same name
runs), quote the prompt, id and path in POSIX single quotes, and take
--model only if it matches [A-Za-z0-9._:/-]+ without a leading -.

Exit status: 0 sent (or printed), 1 refused, 2 error.`

type options struct {
	cli.Common
	cli.Filter
	cli.Tmux
	Pane       string        `short:"t" long:"pane" value-name:"%ID" description:"the tmux pane of the session"`
	Token      string        `long:"token" value-name:"T" description:"the state token the action was offered under; refuse if the session moved on"`
	Agent      string        `long:"agent" value-name:"ID" description:"agent id for resume-command and spawn (default claude)"`
	Session    string        `long:"session" value-name:"ID" description:"session id for resume and resume-command"`
	Prompt     string        `long:"prompt" value-name:"TEXT" unquote:"false" description:"spawn: the initial prompt"`
	Model      string        `long:"model" value-name:"NAME" description:"resume/spawn: run on this model"`
	Fork       string        `long:"fork" value-name:"SESSION" description:"spawn: fork this session (its transcript comes from the state file)"`
	Transcript string        `long:"transcript" value-name:"PATH" description:"spawn --fork: the transcript to fork from, instead of the state file's"`
	Bin        string        `long:"bin" value-name:"PATH" description:"the agent's launcher (default: the provider's, e.g. claude)"`
	StateFile  string        `long:"state" value-name:"FILE" description:"ag-fold's state file (default $AG_DIR/state.json, else $XDG_RUNTIME_DIR/ag/state.json)"`
	Pass       bool          `long:"pass" description:"filter: also pass every input event through"`
	Verify     string        `long:"verify" value-name:"FILE" description:"obey only actions signed with the key in FILE (ag-keys keygen), for this host, at most --window old, never twice; refuse anything else"`
	Window     time.Duration `long:"window" value-name:"DURATION" default:"60s" description:"with --verify: how old (or how far ahead, for clocks apart) a signed action may be"`
	Host       string        `long:"host" value-name:"NAME" description:"sign: the host for actions that name none"`
	DryRun     bool          `short:"n" long:"dry-run" description:"decide and report, but type nothing"`
	focusOptions
}

// cmd is one run of ag-keys.
type cmd struct {
	prog   cli.Program
	opts   options
	env    paths.Env
	now    func() time.Time
	sleep  func(context.Context, time.Duration) error
	out    *cli.Writer
	filter *evfilter.Filter
	tmux   *tmux.Client
	// acted remembers session+token pairs already answered in this run: the
	// state file is rewritten with a debounce, so a second press on the
	// same wait could otherwise still match the old token.
	acted map[string]bool
	self  hostname.Self
	key   sign.Key // with --verify
	// performed holds the actions already handled (ids, or signatures
	// under --verify), also across restarts: replays, QoS 1 duplicates.
	performed *done
	// sent, when set, hears each step's send as tmux returns from it (tests
	// check the timing ag-keys controls apart from tmux's delivery).
	sent func(keyplan.Step, time.Time)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newCmd(stdout, stderr).main(ctx, args, stdin)
}

func newCmd(stdout, stderr io.Writer) *cmd {
	return &cmd{
		prog: cli.Program{
			Name: "ag-keys", Usage: "[OPTIONS] [approve|deny|reply TEXT|answer TEXT|plan-approve|plan-deny|resume|resume-command|spawn|focus]",
			Short: "answer an agent by typing into its pane; resume, spawn and fork command lines",
			Long:  long, Stdout: stdout, Stderr: stderr,
		},
		env:   paths.OS(),
		now:   time.Now,
		sleep: sleepCtx,
		out:   cli.NewWriter(stdout),
		acted: map[string]bool{},
	}
}

func (c *cmd) main(ctx context.Context, args []string, stdin io.Reader) int {
	rest, done, code := c.prog.Parse(&c.opts, args)
	if done {
		return code
	}
	f, err := evfilter.New(c.opts.Filter)
	if err != nil {
		c.prog.Errorf("%v", err)
		return cli.ExitError
	}
	c.filter = f
	socket, name := c.opts.Server()
	c.tmux = &tmux.Client{Socket: socket, Name: name}
	c.self = hostname.Of(c.env)
	if c.opts.StateFile == "" {
		c.opts.StateFile = paths.StateFile(c.env)
	}
	if len(rest) > 0 && (rest[0] == "keygen" || rest[0] == "sign") {
		if len(rest) != 2 {
			return c.usage("%s takes one FILE (the key)", rest[0])
		}
		if rest[0] == "keygen" {
			return c.keygen(rest[1])
		}
		return c.signStream(ctx, rest[1], stdin)
	}
	if c.opts.Verify != "" {
		if c.key, err = sign.Load(c.opts.Verify); err != nil {
			c.prog.Errorf("--verify: %v", err)
			return cli.ExitError
		}
	}
	if len(rest) == 0 {
		c.performed = openDone(filepath.Join(filepath.Dir(c.opts.StateFile), "keys-done"))
		return c.filterMode(ctx, stdin)
	}
	c.performed = openDone("")
	word, rest := rest[0], rest[1:]
	switch word {
	case "focus":
		if len(rest) > 0 {
			return c.usage("focus takes no arguments (got %q)", rest[0])
		}
		return c.focus(ctx, c.opts.focusOptions)
	case "resume", "resume-command", "spawn":
		if len(rest) > 0 {
			return c.usage("%s takes no arguments (got %q)", word, rest[0])
		}
		return c.launch(ctx, word)
	case provider.ActReply, provider.ActAnswer:
		if len(rest) != 1 {
			return c.usage("%s takes one TEXT argument", word)
		}
	case provider.ActApprove, provider.ActDeny, provider.ActPlanApprove, provider.ActPlanDeny:
		if len(rest) > 0 {
			return c.usage("%s takes no TEXT", word)
		}
	default:
		return c.usage("unknown action %q", word)
	}
	if c.opts.Pane == "" {
		return c.usage("%s needs --pane", word)
	}
	a := event.New(event.Action, c.now(), "", "")
	a.Action, a.Pane, a.Token, a.Host = word, c.opts.Pane, c.opts.Token, c.self.Name
	if len(rest) == 1 {
		a.Text = rest[0]
	}
	r := c.act(ctx, &a, false)
	if err := c.emit(&r.ev); err != nil {
		return c.writeErr(err)
	}
	return r.code
}

func (c *cmd) usage(format string, a ...any) int {
	c.prog.Errorf(format+" (see %s --help)", append(a, c.prog.Name)...)
	return cli.ExitError
}

// inputLine is one event read from stdin, with its line number.
type inputLine struct {
	e    event.Event
	line int
	err  error
}

// filterMode performs every action event on stdin.
func (c *cmd) filterMode(ctx context.Context, stdin io.Reader) int {
	in := c.prog.NewReader(stdin, "<stdin>")
	// Read in the background, so a signal ends the filter while it waits
	// for input: ag-pipeline stops its stages with SIGTERM, and a read
	// blocked on an idle pipe would keep this one running. One line at a
	// time, on request, so the reader never runs beside an action.
	next, lines := make(chan struct{}, 1), make(chan inputLine, 1)
	defer close(next)
	go func() {
		for range next {
			var l inputLine
			_, l.err = in.Next(&l.e)
			l.line = in.Line()
			lines <- l
		}
	}()
	code := cli.ExitOK
	for {
		if ctx.Err() != nil {
			return cli.ExitInterrupted
		}
		next <- struct{}{}
		var l inputLine
		select {
		case <-ctx.Done():
			return cli.ExitInterrupted
		case l = <-lines:
		}
		e, err := &l.e, l.err
		if err == io.EOF {
			break
		}
		if err != nil {
			c.prog.Errorf("<stdin>: %v", err)
			return cli.ExitError
		}
		if c.opts.Pass {
			if err := c.emit(e); err != nil {
				return c.writeErr(err)
			}
		}
		if e.Kind != event.Action || !c.mine(e) {
			continue // another host's action is its own to answer
		}
		r := c.act(ctx, e, true)
		if r.code == cli.ExitError {
			code = cli.ExitError
			c.prog.Errorf("<stdin>:%d: %s", l.line, r.ev.Reason)
		}
		if err := c.emit(&r.ev); err != nil {
			return c.writeErr(err)
		}
	}
	if in.Bad > 0 {
		code = cli.ExitError
	}
	return code
}

func (c *cmd) emit(e *event.Event) error { return c.filter.Write(c.out, e) }

func (c *cmd) writeErr(err error) int {
	if errors.Is(err, cli.ErrClosed) {
		return cli.ExitOK
	}
	c.prog.Errorf("%v", err)
	return cli.ExitError
}

// keyed returns the agent's key map, if it has one.
func keyed(agent string) (provider.KeyMap, bool) {
	k, ok := providers.ByID(agent).(provider.Keyed)
	if !ok {
		return provider.KeyMap{}, false
	}
	return k.Keys(), true
}

func commanded(agent string) (provider.Commands, error) {
	p := providers.ByID(agent)
	if p == nil {
		return provider.Commands{}, fmt.Errorf("unknown agent %q", agent)
	}
	k, ok := p.(provider.Commanded)
	if !ok {
		return provider.Commands{}, fmt.Errorf("%s has no resume/spawn commands", p.Name())
	}
	return k.Commands(), nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Foreground programs that mean no agent is there to answer: in a shell
// typed text would run as a command; in an editor or pager keystrokes are
// commands too. Refusing them fails closed.
var shellNames = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "fish": true, "dash": true, "ksh": true, "mksh": true,
	"tcsh": true, "csh": true, "nu": true, "ash": true, "yash": true, "elvish": true, "xonsh": true,
	"vi": true, "vim": true, "nvim": true, "nano": true, "emacs": true, "hx": true, "micro": true,
	"less": true, "more": true, "man": true, "top": true, "htop": true,
}

// POSIX shells read single quotes the way shquote writes them; fish, csh and
// nu do not (fish reads \' inside ”, csh expands ! there), so nothing is
// typed into them.
var posixShells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "yash": true}

// foreground is the pane's foreground command, "-zsh" read as "zsh".
func (c *cmd) foreground(ctx context.Context, pane string) (string, error) {
	s, err := c.tmux.Display(ctx, pane, "#{pane_current_command}")
	if err != nil {
		return "", err
	}
	return commandName(s), nil
}

// commandName is the program name in a pane_current_command: a login
// shell shows as "-zsh" on macOS, and some platforms report a path.
func commandName(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "-")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
