package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/regfile"
	"github.com/agwatch/ag/filters/replace"
	"github.com/agwatch/ag/filters/sign"
)

// Which actions ag-keys obeys. Over a broker every host hears every
// action: one naming another host is not for it and is skipped without a
// word. With --verify an action must also be signed with the key, for
// this host, recent (--window), and not one already obeyed; the token
// check that follows refuses one the session has moved on from.

// mine reports whether a names this host (or no host: a local pipeline).
func (c *cmd) mine(a *event.Event) bool { return c.self.Is(a.Host) }

// verify says why a must not be obeyed under --verify ("" to go on).
func (c *cmd) verify(a *event.Event) string {
	if c.key == nil {
		return ""
	}
	if err := c.key.Check(a); err != nil {
		return err.Error()
	}
	if a.Host == "" {
		return "the signed action names no host"
	}
	age := c.now().Sub(a.T.Time)
	switch {
	case age > c.opts.Window:
		return fmt.Sprintf("the action is %s old (--window %s)", age.Round(time.Second), c.opts.Window)
	case -age > c.opts.Window:
		return fmt.Sprintf("the action is dated %s ahead (--window %s): check the clocks", (-age).Round(time.Second), c.opts.Window)
	}
	return ""
}

// doneKey is what makes an action the same one again: its signature when
// verified (it covers the id, and cannot be made anew), else its id.
func (c *cmd) doneKey(a *event.Event) string {
	if c.key != nil {
		return a.Sig
	}
	return a.ID
}

// maxDone bounds the actions remembered (in memory and in the file).
const maxDone = 2048

// maxAction is the longest action line ag-keys reads when it reads only
// actions: a reply is at most 2,000 characters, an action with it a few
// kilobytes; a line past this is reported and skipped, never kept.
const maxAction = 64 << 10

// maxDoneBytes bounds the file: maxDone lines of ids and signatures.
const maxDoneBytes = 1 << 20

// done remembers the actions performed, in the state directory too, so a
// duplicate (MQTT QoS 1 delivers at least once, also to the next
// mosquitto_sub of a persistent session) is not typed again after a
// restart.
type done struct {
	path string
	ids  map[string]bool
	n    int // lines in the file
}

func openDone(path string) *done {
	d := &done{path: path, ids: map[string]bool{}}
	b, err := regfile.ReadFile(path, maxDoneBytes)
	if err != nil {
		return d
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) > maxDone {
		lines = lines[len(lines)-maxDone/2:]
		d.rewrite(lines)
	}
	for _, l := range lines {
		if _, id, ok := bytes.Cut(l, []byte(" ")); ok && len(id) > 0 {
			d.ids[string(id)] = true
			d.n++
		}
	}
	return d
}

func (d *done) has(id string) bool { return id != "" && d.ids[id] }

// add records id; the file is best effort (a read-only state directory
// still leaves the memory of this run).
func (d *done) add(id string, at time.Time) {
	if id == "" {
		return
	}
	if len(d.ids) >= maxDone {
		clear(d.ids)
	}
	d.ids[id] = true
	if d.path == "" {
		return
	}
	line := strconv.FormatInt(at.UnixMilli(), 10) + " " + id + "\n"
	if err := os.MkdirAll(filepath.Dir(d.path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(d.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	f.WriteString(line)
	f.Close()
	if d.n++; d.n > maxDone {
		d.compact()
	}
}

func (d *done) compact() {
	b, err := regfile.ReadFile(d.path, maxDoneBytes)
	if err != nil {
		return
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) > maxDone/2 {
		lines = lines[len(lines)-maxDone/2:]
	}
	d.rewrite(lines)
	d.n = len(lines)
}

// rewrite replaces the file atomically (best effort: the file only
// spares a restarted ag-keys a second press).
func (d *done) rewrite(lines [][]byte) {
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	replace.File(d.path, b)
}

// keygen writes a new key file.
func (c *cmd) keygen(path string) int {
	if err := sign.Generate(path); err != nil {
		c.prog.Errorf("keygen: %v", err)
		return cli.ExitError
	}
	return cli.ExitOK
}

// signStream signs the action events on stdin with the key in path, for a
// front-end of the user's own (a phone relay, a script), and passes every
// other line through. An action naming no host takes --host; one that
// still names none is reported and left out: a signature must say where
// it may type.
func (c *cmd) signStream(ctx context.Context, path string, stdin io.Reader) int {
	k, err := sign.Load(path)
	if err != nil {
		c.prog.Errorf("sign: %v", err)
		return cli.ExitError
	}
	in := c.prog.NewReader(stdin, "<stdin>")
	code := cli.ExitOK
	for ctx.Err() == nil {
		var e event.Event
		line, err := in.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			c.prog.Errorf("<stdin>: %v", err)
			return cli.ExitError
		}
		if e.Kind != event.Action {
			if err := c.out.Raw(append(line, '\n')); err != nil {
				return c.writeErr(err)
			}
			continue
		}
		if e.Host == "" {
			e.Host = c.opts.Host
		}
		if e.Host == "" {
			c.prog.Errorf("<stdin>:%d: the action names no host (give --host)", in.Line())
			code = cli.ExitError
			continue
		}
		if e.ID == "" {
			// An id makes the action one request: a copy of it is refused.
			e.ID = event.MakeID("sign", e.Agent, e.Session, e.Host, e.Pane, e.Action, e.Text, e.Token, e.T.String())
		}
		k.Sign(&e)
		if err := c.emit(&e); err != nil {
			return c.writeErr(err)
		}
	}
	if ctx.Err() != nil {
		return cli.ExitInterrupted
	}
	if in.Bad > 0 {
		code = cli.ExitError
	}
	return code
}
