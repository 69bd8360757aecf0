package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/filters/spool"
	"github.com/agwatch/ag/providers/claude/claudehook"
	"github.com/agwatch/ag/providers/hooks"
	"github.com/agwatch/ag/providers/provider"
)

// statuslineOpts are the statusline's options (ag-hook-setup's help
// describes them: --agent, --then, --then-timeout, --format).
type statuslineOpts struct {
	Agent       string        // whose payload ("": Claude Code's)
	Then        string        // run this with sh -c and print its output instead
	ThenTimeout time.Duration // give up on Then after this long (0: 5s)
	Format      string        // Go template for ag's line ("": the default)
}

// errHelp is parseStatusline's answer to --help, --man or --version.
var errHelp = errors.New("help")

// parseStatusline reads the statusline's options as a flag parser would:
// --name VALUE or --name=VALUE. Arguments that are not options (Claude
// appends none) are returned, to be reported and ignored.
func parseStatusline(args []string) (o statuslineOpts, stray []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return o, append(stray, args[i+1:]...), nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			stray = append(stray, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "h", "help", "man", "version":
			return o, nil, errHelp
		case "agent", "then", "then-timeout", "format":
		default:
			return o, nil, fmt.Errorf("unknown option %s", a)
		}
		if !hasVal {
			if i+1 == len(args) {
				return o, nil, fmt.Errorf("%s needs a value", a)
			}
			i++
			val = args[i]
		}
		switch name {
		case "agent":
			o.Agent = val
		case "then":
			o.Then = val
		case "format":
			o.Format = val
		case "then-timeout":
			d, err := time.ParseDuration(val)
			if err != nil {
				return o, nil, fmt.Errorf("--then-timeout: %v", err)
			}
			if d < 0 {
				return o, nil, fmt.Errorf("--then-timeout %v: a duration cannot be negative", d)
			}
			o.ThenTimeout = d
		}
	}
	return o, stray, nil
}

// maxStatusPayload bounds what is read of the statusLine stdin (real ones
// are about 2 KB); the rest is drained.
const maxStatusPayload = 4 << 20

// spoolWait is how long the line waits, once printed, for the spool append
// to finish before exiting without it: Claude shows the line only when the
// command exits. $AG_STATUSLINE_WAIT (a duration) changes it, for tests on
// a loaded machine.
const spoolWait = 200 * time.Millisecond

// spoolWaitEnv overrides spoolWait.
const spoolWaitEnv = "AG_STATUSLINE_WAIT"

// statusRepeat is how often an unchanged reading is appended anyway, so a
// restarted ag-fold replaying a young spool still learns the meters.
const statusRepeat = 10 * time.Minute

// statusline is one statusLine run: read, start the user's command, append
// the meter, print a line, exit 0.
func (c *cmd) statusline(o statuslineOpts) int {
	payload, err := readPayload(c.stdin, maxStatusPayload, false)
	if err != nil {
		c.debugf("statusline: reading stdin: %v", err)
	}
	var then *thenRun
	if o.Then != "" {
		then = c.startThen(o.Then, o.ThenTimeout, payload)
	}
	agent := c.statusAgent(o.Agent)
	st, perr := claudehook.ParseStatusOf(agent.ID(), payload)
	if perr != nil {
		c.debugf("statusline: payload: %v", perr)
	}
	appended := make(chan struct{})
	go func() {
		defer close(appended)
		defer func() {
			if r := recover(); r != nil {
				c.debugf("statusline: panic: %v", r)
			}
		}()
		c.appendMeter(&st, agent.ProcessNames())
	}()
	if then != nil {
		if out, ok := then.wait(); ok {
			c.stdout.Write(out)
			c.awaitSpool(appended)
			return exitOK
		}
	}
	c.stdout.Write(c.renderLine(o.Format, &st))
	c.awaitSpool(appended)
	return exitOK
}

func (c *cmd) awaitSpool(done <-chan struct{}) {
	wait := spoolWait
	if d, err := time.ParseDuration(c.env(spoolWaitEnv)); err == nil && d > 0 {
		wait = d
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		c.debugf("statusline: spool append still running after %s; line printed without it", wait)
	}
}

// statusAgent is the agent whose statusLine runs this (--agent; Claude
// Code by default): one whose hooks ag-hook runs, the payload read as
// Claude's shape. Another name is reported, and read as Claude's.
func (c *cmd) statusAgent(id string) hooks.Mapper {
	if id != "" {
		if m := c.hooked(id); m != nil {
			return m
		}
		c.errorf("statusline: --agent %q: no such agent (read as %s)", id, claudehook.ID)
	}
	return claudehook.Mapper{}
}

// appendMeter writes the meter event to the spool, unless the last one
// this session appended (less than statusRepeat ago) said the same; the
// agent's process is the nearest ancestor named one of procs.
func (c *cmd) appendMeter(st *claudehook.Status, procs []string) {
	hc := provider.HookContext{Now: c.now(), Pane: c.env("TMUX_PANE"), Getenv: c.env}
	e := st.Meter(hc)
	if e == nil {
		return
	}
	// The last reading appended, per session: "<unix ms> <signature>".
	last := filepath.Join(paths.StateDir(c.env), "statusline", event.MakeID("statusline", st.Session))
	sig := []byte(st.Signature())
	if old, err := os.ReadFile(last); err == nil {
		ms, prev, _ := bytes.Cut(old, []byte(" "))
		at, err := strconv.ParseInt(string(ms), 10, 64)
		if age := hc.Now.Sub(time.UnixMilli(at)); err == nil && age >= 0 && age < statusRepeat && bytes.Equal(prev, sig) {
			return
		}
	}
	pid := e.PID // a background session's, named by Claude
	e.PID, e.TTY = agentProcess(os.Getppid(), procs)
	if pid != 0 {
		e.PID = pid
	}
	e.Host = hostname.Of(c.env).Name
	if err := spool.Append(paths.Spool(c.env), event.AppendJSON(nil, e), spool.Max(c.env)); err != nil {
		c.debugf("statusline: spool: %v", err)
		return
	}
	rec := append(strconv.AppendInt(nil, hc.Now.UnixMilli(), 10), ' ')
	if err := os.MkdirAll(filepath.Dir(last), spool.DirMode); err == nil {
		os.WriteFile(last, append(rec, sig...), spool.FileMode)
	}
	if hc.Now.UnixNano()%64 == 0 { // now and then, forget old sessions
		pruneLast(filepath.Dir(last), hc.Now.Add(-statusForget))
	}
}

// statusForget is when a session's last-reading file is removed.
const statusForget = 7 * 24 * time.Hour

// pruneLast removes the last-reading files not written since before.
func pruneLast(dir string, before time.Time) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(before) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// thenRun is the user's own statusLine command, running.
type thenRun struct {
	cmd    *exec.Cmd
	out    bytes.Buffer
	cancel context.CancelFunc
	err    error // from Start
	c      *cmd
	line   string
}

// startThen starts `sh -c line` with the payload on stdin, this process's
// environment and working directory, and its stderr passed through.
func (c *cmd) startThen(line string, timeout time.Duration, payload []byte) *thenRun {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	// Interrupted or terminated, stop the command's whole group rather
	// than leave it running.
	sctx, stop := signal.NotifyContext(c.ctx, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(sctx, timeout)
	r := &thenRun{cancel: func() { cancel(); stop() }, c: c, line: line}
	r.cmd = exec.CommandContext(ctx, "/bin/sh", "-c", line)
	r.cmd.Stdin = bytes.NewReader(payload)
	// Both through pipes of ours (never our own descriptors), closed
	// WaitDelay after the command ends: a background child it left must
	// not hold the line, nor Claude's stderr.
	r.cmd.Stdout = &r.out
	r.cmd.Stderr = struct{ io.Writer }{c.stderr}
	r.cmd.WaitDelay = 100 * time.Millisecond
	ownGroup(r.cmd)
	r.err = r.cmd.Start()
	return r
}

// wait returns the command's output, or false when it failed and ag's own
// line should show instead.
func (r *thenRun) wait() ([]byte, bool) {
	defer r.cancel()
	err := r.err
	if err == nil {
		err = r.cmd.Wait()
	}
	// It exited 0 but left a background child holding stdout: what it
	// printed by then is its answer.
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil
	}
	if err != nil {
		r.c.errorf("statusline: --then %q: %v (showing ag's line)", r.line, err)
		return nil, false
	}
	return r.out.Bytes(), true
}
