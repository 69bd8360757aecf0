package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// publishGap is the least time between two runs of --publish: a snapshot
// is for a reader that comes late, who needs the states, not each step.
const publishGap = time.Second

// publisher runs --publish CMD with the current states (NDJSON) on stdin
// whenever they changed, one run at a time, the newest snapshot winning:
// `--publish 'mosquitto_pub -r -s -t ag/HOST/snapshot'` keeps a retained
// snapshot on a broker for a workstation that subscribes late. A run that
// fails (the broker is down) is tried again, 1 s, 2 s, … 30 s apart, until
// one gets through: the states that changed meanwhile reach the broker
// when it is back (mosquitto_pub -l drops what it is given while
// disconnected). Every --publish-every the snapshot goes again unchanged:
// a confirmation that clears a stale mark (a will the broker sent when it
// restarted).
type publisher struct {
	cmd    string
	errorf func(format string, a ...any)

	mu      sync.Mutex
	next    []byte // the snapshot waiting to go, nil if none
	busy    bool
	closing bool // the end of input: no more retries
	lastErr string
	idle    *sync.Cond
}

func newPublisher(cmd string, errorf func(string, ...any)) *publisher {
	p := &publisher{cmd: cmd, errorf: errorf}
	p.idle = sync.NewCond(&p.mu)
	return p
}

// offer hands over the states; cheap, never waits for the command.
func (p *publisher) offer(states []event.Event) {
	if p == nil {
		return
	}
	var b []byte
	for i := range states {
		b = event.AppendJSON(b, &states[i])
	}
	if b == nil {
		b = []byte{} // no sessions is a snapshot too
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next = b
	if !p.busy {
		p.busy = true
		go p.loop()
	}
}

func (p *publisher) loop() {
	var last time.Time
	gap := publishGap
	for {
		if wait := gap - time.Since(last); !last.IsZero() && wait > 0 {
			time.Sleep(wait)
		}
		p.mu.Lock()
		b := p.next
		p.next = nil
		if b == nil {
			p.busy = false
			p.idle.Broadcast()
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		last = time.Now()
		if p.run(b) {
			gap = publishGap
			continue
		}
		gap = min(2*gap, 30*time.Second)
		p.mu.Lock()
		if p.next == nil && !p.closing {
			p.next = b // nothing newer came: try this one again
		}
		p.mu.Unlock()
	}
}

// run runs the command once; true when it succeeded.
func (p *publisher) run(b []byte) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "sh", "-c", p.cmd)
	c.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	c.Stdout, c.Stderr = os.Stderr, &stderr
	err := c.Run()
	msg := ""
	if err != nil {
		msg = err.Error()
		if s := strings.TrimSpace(stderr.String()); s != "" {
			msg += ": " + s
		}
	}
	p.mu.Lock()
	report := msg != "" && msg != p.lastErr
	p.lastErr = msg
	p.mu.Unlock()
	if report {
		p.errorf("--publish: %s", msg)
	}
	return err == nil
}

// wait returns once nothing is left to publish (the end of input).
func (p *publisher) wait() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.closing = true
	for p.busy {
		p.idle.Wait()
	}
	p.mu.Unlock()
}
