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
	line, err := json.Marshal(execNote{Op: op, Note: n})
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", b.command)
	cmd.Stdin = bytes.NewReader(append(line, '\n'))
	// Its output is not an event: both go to our stderr.
	cmd.Stdout, cmd.Stderr = b.stderr, b.stderr
	cmd.WaitDelay = time.Second
	cmd.Env = append(os.Environ(),
		"AG_OP="+op, "AG_KIND="+n.Kind, "AG_AGENT="+n.Agent, "AG_SESSION="+n.Session,
		"AG_PANE="+n.Pane, "AG_TOKEN="+n.Token, "AG_TITLE="+n.Title,
		"AG_SUBTITLE="+n.Subtitle, "AG_BODY="+n.Body,
	)
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return strconv.Itoa(cmd.ProcessState.Pid()), nil
}

func (b *execBackend) Close() {}
