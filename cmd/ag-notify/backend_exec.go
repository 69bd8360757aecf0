package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/safetext"
)

// execBackend runs the user's command per delivery and retraction. The
// notification travels as data only, one JSON line on stdin and AG_*
// variables, never spliced into the command line: the agent's text is
// untrusted (a prompt or a command the model wrote).
type execBackend struct {
	command string
	stderr  io.Writer
}

func (b *execBackend) Name() string { return "exec" }

func (b *execBackend) Deliver(ctx context.Context, n *notify.Note) (string, error) {
	return b.run(ctx, "deliver", n)
}

func (b *execBackend) Retract(ctx context.Context, n *notify.Note) (string, error) {
	return b.run(ctx, "retract", n)
}

// execNote is the stdin line: the note plus what to do with it.
type execNote struct {
	Op string `json:"op"`
	*notify.Note
}

func (b *execBackend) run(ctx context.Context, op string, n *notify.Note) (string, error) {
	line, err := json.Marshal(execNote{Op: op, Note: shown(n)})
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", b.command)
	cmd.Stdin = bytes.NewReader(append(line, '\n'))
	// Its output is not an event: both go to our stderr.
	cmd.Stdout, cmd.Stderr = b.stderr, b.stderr
	cmd.WaitDelay = time.Second
	// A script may echo any of these to a terminal, and exec refuses a
	// variable that holds a NUL: each is made safe (safetext.Env); the
	// exact session and token are in the JSON.
	env := func(k, v string) string { return k + "=" + safetext.Env(v, 0) }
	cmd.Env = append(os.Environ(),
		env("AG_OP", op), env("AG_KIND", n.Kind), env("AG_AGENT", n.Agent), env("AG_SESSION", n.Session),
		env("AG_PANE", n.Pane), env("AG_TOKEN", n.Token), env("AG_TITLE", n.Title),
		env("AG_SUBTITLE", n.Subtitle), "AG_BODY="+safetext.Text(n.Body, 0),
	)
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return strconv.Itoa(cmd.ProcessState.Pid()), nil
}

func (b *execBackend) Close() {}

// shown is the note as the command's stdin carries it: what describes the
// session made safe to print (JSON would carry an ESC as \u001b, and a
// script's jq -r would print it raw); the session and token, which an
// action must quote exactly, as they are.
func shown(n *notify.Note) *notify.Note {
	c := *n
	for _, p := range []*string{&c.Kind, &c.Agent, &c.Host, &c.Pane, &c.TTY, &c.Attention} {
		*p = safetext.Line(*p, 0)
	}
	return &c
}
