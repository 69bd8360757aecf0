package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/regfile"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/providers/provider"
)

// launch runs resume, resume-command and spawn.
func (c *cmd) launch(ctx context.Context, word string) int {
	o := &c.opts
	if word == "resume" {
		if o.Pane == "" {
			return c.usage("resume needs --pane")
		}
		return c.typeLine(ctx, word, func(a *event.Event) (string, error) {
			if o.Session == "" {
				st, ok, err := c.lookup(&event.Event{Pane: o.Pane})
				switch {
				case errors.Is(err, state.ErrNoFile):
					return "", refusal("no state file %s; give --agent and --session", o.StateFile)
				case err != nil:
					return "", err
				case !ok:
					return "", refusal("no session in pane %s; give --session", o.Pane)
				}
				a.Agent, a.Session = st.Agent, st.Session
			} else {
				a.Agent, a.Session = agentOr(o.Agent), o.Session
			}
			cmds, err := commanded(a.Agent)
			if err != nil {
				return "", refusal("%v", err)
			}
			return wrap(cmds.ResumeCommand(a.Session, provider.Launch{Bin: o.Bin, Model: o.Model}))
		})
	}
	build := func(a *event.Event) (string, error) {
		a.Agent = agentOr(o.Agent)
		cmds, err := commanded(a.Agent)
		if err != nil {
			return "", refusal("%v", err)
		}
		l := provider.Launch{Bin: o.Bin, Model: o.Model}
		switch {
		case word == "resume-command":
			if o.Session == "" {
				return "", usageError("resume-command needs --session")
			}
			a.Session = o.Session
			return wrap(cmds.ResumeCommand(o.Session, l))
		case (o.Fork != "" || o.Transcript != "") && cmds.Fork == "":
			return "", refusal("%s has no fork command", a.Agent)
		case o.Fork != "" && o.Transcript == "" && cmds.ForksByID():
			if o.Prompt != "" {
				return "", usageError("a fork takes no --prompt (it continues the source's history)")
			}
			a.Session = o.Fork
			return wrap(cmds.ForkIDCommand(o.Fork, l))
		case o.Fork != "" || o.Transcript != "":
			if o.Prompt != "" {
				return "", usageError("a fork takes no --prompt (it continues the source's history)")
			}
			path, err := c.forkSource(a)
			if err != nil {
				return "", err
			}
			return wrap(cmds.ForkCommand(path, l))
		case o.Prompt != "":
			return wrap(cmds.SpawnCommand(o.Prompt, l))
		default:
			return wrap(cmds.StartCommand(l))
		}
	}
	if o.Pane != "" && word == "spawn" {
		return c.typeLine(ctx, word, build)
	}
	if o.Pane != "" {
		return c.usage("%s prints; it takes no --pane", word)
	}
	line, err := build(&event.Event{})
	var u usageError
	var no *refusalError
	switch {
	case errors.As(err, &u):
		return c.usage("%s", err)
	case errors.As(err, &no):
		c.prog.Errorf("refused: %v", err)
		return cli.ExitNoMatch
	case err != nil:
		c.prog.Errorf("%v", err)
		return cli.ExitError
	}
	if _, err := fmt.Fprintln(c.prog.Stdout, line); err != nil {
		return c.writeErr(err)
	}
	return cli.ExitOK
}

// typeLine types a command line into a pane at a POSIX shell, then Enter,
// and writes the keys event.
func (c *cmd) typeLine(ctx context.Context, word string, build func(*event.Event) (string, error)) int {
	a := event.New(event.Action, c.now(), "", "")
	a.Action, a.Pane = word, c.opts.Pane
	r := result{ev: c.keysEvent(&a)}
	out := func(status, reason string, code int) int {
		r.ev.Agent, r.ev.Session = a.Agent, a.Session
		r.finish(status, reason, code)
		if err := c.emit(&r.ev); err != nil {
			return c.writeErr(err)
		}
		c.say(ctx, &r.ev, cli.Place{}, "")
		return r.code
	}
	line, err := build(&a)
	var u usageError
	var no *refusalError
	switch {
	case errors.As(err, &u):
		return c.usage("%s", err)
	case errors.As(err, &no):
		return out(statusRefused, err.Error(), cli.ExitNoMatch)
	case err != nil:
		return out(statusError, err.Error(), cli.ExitError)
	}
	if i := strings.IndexFunc(line, unicode.IsControl); i >= 0 {
		// A typed newline or control key is an editing command to the
		// shell's line editor (C-j submits, ESC # comments and submits).
		return out(statusRefused, fmt.Sprintf("the command has a control character (%q); a shell pane is typed one line", line[i]), cli.ExitNoMatch)
	}
	plan := keyplan.Plan{Steps: []keyplan.Step{{Literal: line}, {Wait: provider.EnterDelay, Keys: []string{"Enter"}}}}
	r.ev.Text = keyplan.Describe(plan)
	fg, err := c.foreground(ctx, c.opts.Pane)
	if err != nil {
		return out(statusError, err.Error(), cli.ExitError)
	}
	if !posixShells[fg] {
		return out(statusRefused, fmt.Sprintf("the pane's foreground is %s, not a POSIX shell", fg), cli.ExitNoMatch)
	}
	if c.opts.DryRun {
		return out(statusPlanned, "", cli.ExitOK)
	}
	if n, err := c.typePlan(ctx, c.opts.Pane, plan, nil, nil); err != nil {
		return out(statusError, fmt.Sprintf("after %d of %d steps: %v", n, len(plan.Steps), err), cli.ExitError)
	}
	return out(statusSent, "", cli.ExitOK)
}

// forkSource is the transcript a fork continues: --transcript, else the
// --fork session's from the state file. It must be an absolute, readable
// .jsonl file: a fork that finds no conversation is a live pane nothing
// can detect.
func (c *cmd) forkSource(a *event.Event) (string, error) {
	path := c.opts.Transcript
	a.Session = c.opts.Fork
	if path == "" {
		st, ok, err := c.lookup(&event.Event{Agent: a.Agent, Session: c.opts.Fork})
		switch {
		case errors.Is(err, state.ErrNoFile):
			return "", refusal("no state file %s; give --transcript", c.opts.StateFile)
		case err != nil:
			return "", err
		case !ok:
			return "", refusal("no session %s in the state file; give --transcript", c.opts.Fork)
		case st.Transcript == "":
			return "", refusal("session %s has no transcript path", c.opts.Fork)
		}
		path = st.Transcript
	}
	if !strings.HasPrefix(path, "/") || !strings.HasSuffix(path, ".jsonl") {
		return "", refusal("transcript %q is not an absolute .jsonl path", path)
	}
	f, _, err := regfile.Open(path) // a FIFO must not hold the command
	if err != nil {
		return "", refusal("transcript: %v", err)
	}
	f.Close()
	return path, nil
}

func agentOr(a string) string {
	if a == "" {
		return claude.ID
	}
	return a
}

type usageError string

func (u usageError) Error() string { return string(u) }

type refusalError struct{ msg string }

func (r *refusalError) Error() string { return r.msg }

func refusal(format string, a ...any) error { return &refusalError{fmt.Sprintf(format, a...)} }

// wrap turns a builder's complaint about its input into a refusal.
func wrap(line string, err error) (string, error) {
	if err != nil {
		return "", &refusalError{err.Error()}
	}
	return line, nil
}
