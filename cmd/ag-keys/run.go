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

type options struct {
	Pane       string        `short:"t" long:"pane" value-name:"%ID" description:"the tmux pane of the session"`
	Token      string        `long:"token" value-name:"T" description:"the state's token: refuse if the session moved on"`
	DryRun     bool          `short:"n" long:"dry-run" description:"decide and report, type nothing"`
	Pass       bool          `long:"pass" description:"reading actions: pass every event read on too"`
	Agent      string        `long:"agent" value-name:"ID" description:"resume-command, spawn: the agent (claude)"`
	Session    string        `long:"session" value-name:"ID" description:"the session (resume; an action on one with no pane)"`
	Prompt     string        `long:"prompt" value-name:"TEXT" unquote:"false" description:"spawn: the first prompt"`
	Model      string        `long:"model" value-name:"NAME" description:"resume, spawn: run on this model"`
	Fork       string        `long:"fork" value-name:"SESSION" description:"spawn: fork this session's history"`
	Transcript string        `long:"transcript" value-name:"PATH" more:"true" description:"spawn --fork: the transcript, not the state file's"`
	Bin        string        `long:"bin" value-name:"PATH" more:"true" description:"the agent's launcher (default: its usual name)"`
	StateFile  string        `long:"state" value-name:"FILE" description:"ag-fold's state file (default $AG_DIR/state.json)"`
	Verify     string        `long:"verify" value-name:"FILE" description:"obey only actions signed with this key" man:"the key from ag-keys keygen: for this host, at most --window old, never twice; anything else is refused"`
	Window     time.Duration `long:"window" value-name:"DUR" default:"60s" more:"true" description:"with --verify: how old (or ahead) an action may be"`
	Host       string        `long:"host" value-name:"NAME" more:"true" description:"sign: the host of actions that name none"`
	focusOptions
	cli.Tmux
	cli.QuietFilter
	cli.Common
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
		prog: func() cli.Program {
			p := program()
			p.Stdout, p.Stderr = stdout, stderr
			return p
		}(),
		env:   paths.OS(),
		now:   time.Now,
		sleep: sleepCtx,
		out:   cli.NewWriter(stdout),
		acted: map[string]bool{},
	}
}

func (c *cmd) main(ctx context.Context, args []string, stdin io.Reader) int {
	code := c.dispatch(ctx, args, stdin)
	if c.filter != nil && c.filter.Failed() > 0 && code < cli.ExitError {
		return cli.ExitError // an expression failed on an event (reported)
	}
	return code
}

func (c *cmd) dispatch(ctx context.Context, args []string, stdin io.Reader) int {
	rest, done, code := c.prog.Parse(&c.opts, args)
	if done {
		return code
	}
	f, err := evfilter.New(ctx, c.opts.QuietFilter.Filter())
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
	word := ""
	if len(rest) > 0 {
		word = rest[0]
	}
	if m := c.meaningless(word); m != "" {
		return c.usage("%s means nothing %s", m, map[bool]string{true: "when reading actions from stdin", false: "with " + word}[word == ""])
	}
	if o := c.opts.Agent; o != "" && providers.ByID(o) == nil {
		return c.usage("--agent: unknown agent %q (one of: %s)", o, providers.IDs())
	}
	if len(rest) == 0 {
		c.performed = openDone(filepath.Join(filepath.Dir(c.opts.StateFile), "keys-done"))
		return c.filterMode(ctx, stdin)
	}
	c.performed = openDone("")
	word, rest = rest[0], rest[1:]
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
	case provider.ActApprove, provider.ActDeny, provider.ActPlanApprove, provider.ActPlanDeny, provider.ActOpen:
		if len(rest) > 0 {
			return c.usage("%s takes no TEXT", word)
		}
	default:
		return c.usage("unknown action %q", word)
	}
	if c.opts.Pane == "" && c.opts.Session == "" {
		return c.usage("%s needs --pane (or --session: a background session has no pane)", word)
	}
	a := event.New(event.Action, c.now(), "", c.opts.Session)
	a.Action, a.Pane, a.Token, a.Host = word, c.opts.Pane, c.opts.Token, c.self.Name
	if len(rest) == 1 {
		a.Text = rest[0]
	}
	r := c.act(ctx, &a, false)
	if err := c.emit(&r.ev); err != nil {
		return c.writeErr(err)
	}
	c.say(ctx, &r.ev, cli.Place{}, "")
	return r.code
}

// meaningless names an option given that word (an action, a command, ""
// for reading actions from stdin) does not use.
func (c *cmd) meaningless(word string) string {
	o := &c.opts
	launch := []string{"agent", "session", "prompt", "model", "fork", "transcript", "bin"}
	focus := []string{"next-waiting", "choose", "client"}
	var not []string
	switch word {
	case "focus":
		not = append(append(not, launch...), "token", "pass")
	case "resume":
		not = append(append(not, focus...), "token", "pass", "prompt", "fork", "transcript")
	case "resume-command":
		not = append(append(not, focus...), "token", "pass", "prompt", "fork", "transcript", "socket", "socket-name", "dry-run")
	case "spawn":
		not = append(append(not, focus...), "token", "pass", "session")
	case "":
		not = append(append(not, launch...), focus...)
		not = append(not, "token", "pane")
	default: // an action: on a pane, or a session (a background one has none); --client is who to tell when it is refused
		not = append(append(not, launch[:1]...), launch[2:]...)
		not = append(not, "next-waiting", "choose", "pass")
	}
	return o.Meaningless(not...)
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
	c.prog.Expecting(stdin, "pipe ag-notify's button presses in, or give an action: ag-keys approve --pane %3")
	in := c.prog.NewReader(stdin, "<stdin>")
	if !c.opts.Pass {
		in.Limit(maxAction) // actions alone: every other line is left out anyway
	}
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
		at := cli.Place{Name: "<stdin>", Line: l.line}
		if c.opts.Pass {
			if err := c.emitAt(e, at); err != nil {
				return c.writeErr(err)
			}
		}
		if e.Kind != event.Action || !c.mine(e) {
			continue // another host's action is its own to answer
		}
		r := c.act(ctx, e, true)
		if r.code == cli.ExitError {
			code = cli.ExitError
		}
		if err := c.emitAt(&r.ev, at); err != nil {
			return c.writeErr(err)
		}
		c.say(ctx, &r.ev, at, e.Backend)
	}
	if in.Bad > 0 {
		code = cli.ExitError
	}
	return code
}

// emit writes one event through --where/--jq.
func (c *cmd) emit(e *event.Event) error {
	return c.emitAt(e, cli.Place{What: "the keys event"})
}

// emitAt is emit for an event that came from at: an expression that fails
// on it is reported there, and the run goes on.
func (c *cmd) emitAt(e *event.Event, at cli.Place) error {
	err := c.filter.Write(c.out, e)
	if evfilter.IsExprError(err) {
		c.prog.Errorf("%s: %v", at, err)
		return nil
	}
	return err
}

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
