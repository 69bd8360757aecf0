package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/filters/spool"
	"github.com/agwatch/ag/providers/hooks"
	"github.com/agwatch/ag/providers/provider"
)

// hook runs one hook: payload in, events to the spool, exit 0. It prints
// only the agent's no-decision answer (hooks.Answerer), on every path.
func (c *cmd) hook(h hooks.Mapper, hookEvent string, print bool) (code int) {
	var payload []byte
	defer func() {
		if r := recover(); r != nil {
			c.debugf("%s: panic: %v", h.ID(), r)
			code = exitOK
		}
		if !print {
			c.answer(h, payload)
		}
	}()
	now := c.now()
	b, batches := h.(hooks.Batcher)
	payload, err := readPayload(c.stdin, maxPayload, batches && b.Batches())
	if err == errTooLarge {
		c.debugf("%s: payload larger than %d bytes, dropped unread", h.ID(), maxPayload)
		return exitOK
	}
	if err != nil {
		c.debugf("%s: reading stdin: %v", h.ID(), err)
		return exitOK
	}
	hc := provider.HookContext{Now: now, Pane: c.env("TMUX_PANE"), Event: hookEvent, Getenv: c.env}
	hc.PID, hc.TTY = agentProcess(os.Getppid(), h.ProcessNames())
	hc.Cwd, _ = os.Getwd()
	hc.Host = hostname.Of(c.env).Name
	events, err := h.MapHook(payload, hc)
	if err != nil {
		c.debugf("%s: %v", h.ID(), err)
		return exitOK
	}
	if len(events) == 0 {
		return exitOK
	}
	var buf []byte
	for i := range events {
		buf = event.AppendJSON(buf, &events[i])
	}
	if print {
		c.stdout.Write(buf)
		return exitOK
	}
	path := paths.Spool(c.env)
	if err := spool.Append(path, buf, spool.Max(c.env)); err != nil {
		c.debugf("%s: spool: %v", h.ID(), err)
	}
	return exitOK
}

// answer prints what the agent requires of a hook that decides nothing.
func (c *cmd) answer(h hooks.Mapper, payload []byte) {
	a, ok := h.(hooks.Answerer)
	if !ok {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			c.debugf("%s: panic in answer: %v", h.ID(), r)
		}
	}()
	if out := a.Answer(payload); len(out) > 0 {
		c.stdout.Write(out)
	}
}

// debugf logs a hook's trouble when $AG_DEBUG is set: to that path when it
// is absolute, else to ag-hook.log in the state directory. Never stdout
// (the agent reads it), never stderr (a hook's stderr can reach the user
// or the model).
func (c *cmd) debugf(format string, a ...any) {
	dest := c.env("AG_DEBUG")
	if dest == "" {
		return
	}
	if !filepath.IsAbs(dest) {
		dest = filepath.Join(paths.StateDir(c.env), "ag-hook.log")
	}
	line := fmt.Sprintf("%s ag-hook[%d]: %s\n", c.now().UTC().Format(event.Layout), os.Getpid(), fmt.Sprintf(format, a...))
	spool.Append(dest, []byte(line), spool.Max(c.env))
}
