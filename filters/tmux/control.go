package tmux

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Control is a control-mode client (tmux -C) attached to one session. A
// command written to it runs without a process of its own, its output
// coming back between %begin and %end; in between, tmux tells it what
// happens (Note): output in one of the session's panes, a window opened
// or closed, a subscribed format's new value. tmux sends %output only for
// the panes of the session a client is attached to: one client per
// session follows a whole server.
type Control struct {
	wait     func() // returns once the client has ended: its process, or its socket
	in       *os.File
	notes    *Notes
	done     chan struct{}
	attached chan error // the attach's own answer: nil, or why it failed

	mu    sync.Mutex
	waits []chan reply // commands written, answered in order
	err   error        // why the client ended
}

// Note is one notification: its name without the %, its words, and for
// %subscription-changed the value after " : ". For %output, Args holds
// the pane only: what a pane printed is not kept.
type Note struct {
	Name  string
	Args  []string
	Value string
	At    time.Time // when it came (an %output held back: its latest)
}

// Pane is the pane a notification names (%output, %pane-mode-changed,
// %subscription-changed on a pane), or "".
func (n Note) Pane() string {
	for _, a := range n.Args {
		if len(a) > 1 && a[0] == '%' {
			return a
		}
	}
	return ""
}

type reply struct {
	out string
	err error
}

// Notes gathers the notifications of one or more control clients. It
// never makes a client wait (the reader of the notes also runs commands,
// whose answers come on the same stream), and it keeps one %output per
// pane until taken: that a pane printed matters, not how often.
type Notes struct {
	mu      sync.Mutex
	q       []Note
	outputs map[string]int // pane → index in q of its %output
	held    map[string]bool
	wake    chan struct{}
}

// NewNotes is an empty queue.
func NewNotes() *Notes {
	return &Notes{outputs: map[string]int{}, held: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// Hold says that output of pane need not wake the reader: it will Take
// before it needs to know (it is to read the pane anyway). Twenty busy
// panes print hundreds of times a second; each wake-up is a reschedule.
func (n *Notes) Hold(pane string, hold bool) {
	n.mu.Lock()
	_, queued := n.outputs[pane]
	if hold {
		n.held[pane] = true
	} else {
		delete(n.held, pane)
	}
	n.mu.Unlock()
	if !hold && queued {
		// Output that came while held is news now: without a wake, and
		// with later output only dating the queued note, it would wait
		// for whatever woke the reader next.
		n.notify()
	}
}

func (n *Notes) notify() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Wake is ready when notes have come since the last Take.
func (n *Notes) Wake() <-chan struct{} { return n.wake }

// Take returns the notes queued, oldest first, and empties the queue.
func (n *Notes) Take() []Note {
	n.mu.Lock()
	defer n.mu.Unlock()
	q := n.q
	n.q = nil
	clear(n.outputs)
	return q
}

func (n *Notes) put(note Note) {
	note.At = time.Now()
	n.mu.Lock()
	if note.Name == "output" {
		pane := note.Args[0]
		if i, ok := n.outputs[pane]; ok {
			n.q[i].At = note.At
			held := n.held[pane]
			n.mu.Unlock()
			if !held {
				n.notify()
			}
			return
		}
		n.outputs[pane] = len(n.q)
		n.q = append(n.q, note)
		if n.held[pane] {
			n.mu.Unlock()
			return
		}
	} else {
		n.q = append(n.q, note)
	}
	n.mu.Unlock()
	n.notify()
}

// ErrClosed is a command sent to a control client that has ended.
var ErrClosed = errors.New("tmux control client ended")

// Attach starts a control client on session (a session id, $3) and
// returns once it is attached. It is attached with ignore-size, so it
// never resizes the session's windows, and never starts a server. On
// tmux 3.2 to 3.6 ag attaches it itself (handshake.go: tmux -C can kill
// those servers), on others a tmux -C process does. notes receives every notification until the client ends, its %exit
// last.
//
// A command written before the attach is done can run on a client that
// has no session yet ("no current client"): Attach waits for the attach's
// own answer first, and says why it failed (the session or the server
// gone, a flag this tmux does not know) as an *Error.
func (c *Client) Attach(ctx context.Context, session string, notes *Notes) (*Control, error) {
	// -E: an attach copies the client's update-environment variables
	// (SSH_AUTH_SOCK, DISPLAY …) into the session; ag's are not the user's.
	args := []string{"attach-session", "-E", "-f", "ignore-size", "-t", session}
	var ct *Control
	if h, ok := attachHeader(c.version(ctx)); ok {
		p, in, out, err := dial(c.SocketPath(), h, args)
		if err != nil {
			return nil, err
		}
		ct = &Control{wait: p.wait, in: in}
		ct.start(notes, out)
	} else {
		var err error
		if ct, err = c.attachProcess(args, notes); err != nil {
			return nil, err
		}
	}
	var err error
	select {
	case err = <-ct.attached:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		ct.Close()
		var te *Error
		if !errors.As(err, &te) {
			te = &Error{Err: err}
		}
		te.Args = args
		return nil, te
	}
	return ct, nil
}

// attachProcess starts tmux -C with args, for a tmux that has no reason
// to be attached to by hand (handshake.go): -N, so it never starts a
// server (attach-session would, where the server has just gone).
func (c *Client) attachProcess(args []string, notes *Notes) (*Control, error) {
	path, err := c.path()
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	null, err := devNull()
	if err != nil {
		return nil, err
	}
	argv := append([]string{path}, c.argv(append([]string{"-N", "-C"}, args...))...)
	p, err := os.StartProcess(path, argv, &os.ProcAttr{Files: []*os.File{inR, outW, null}})
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	ct := &Control{wait: func() { p.Wait() }, in: inW}
	ct.start(notes, outR)
	return ct, nil
}

// start reads the client's output.
func (ct *Control) start(notes *Notes, out *os.File) {
	ct.notes, ct.done, ct.attached = notes, make(chan struct{}), make(chan error, 1)
	go ct.read(out)
}

// Done is closed when the client has ended (its session closed, the
// server exited, Close).
func (ct *Control) Done() <-chan struct{} { return ct.done }

// Err says why the client ended.
func (ct *Control) Err() error {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return ct.err
}

// Close detaches the client: tmux ends a control client whose input
// closes.
func (ct *Control) Close() error {
	err := ct.in.Close()
	<-ct.done
	ct.wait()
	return err
}

// Run runs one tmux command line and returns its output. Commands are
// answered in the order written.
func (ct *Control) Run(ctx context.Context, line string) (string, error) {
	if strings.ContainsAny(line, "\r\n") {
		return "", errors.New("a control-mode command is one line")
	}
	ch := make(chan reply, 1)
	ct.mu.Lock()
	if ct.err != nil {
		ct.mu.Unlock()
		return "", ct.err
	}
	if _, err := ct.in.WriteString(line + "\n"); err != nil {
		ct.mu.Unlock()
		return "", err
	}
	ct.waits = append(ct.waits, ch)
	ct.mu.Unlock()
	select {
	case r := <-ch:
		return r.out, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	case <-ct.done:
		// The answer may have come just before the end.
		select {
		case r := <-ch:
			return r.out, r.err
		default:
			return "", ct.Err()
		}
	}
}

// read splits tmux's output into command blocks and notifications. Inside
// a block every line is output, whatever it starts with, until the %end
// (or %error) with the block's own time and number. A block whose flags
// say no command written here asked for it is the attach's own answer
// (the first); it answers nobody else. A line outside any block before
// that answer is tmux refusing the attach ("unknown flag").
func (ct *Control) read(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	var block *bytes.Buffer
	var id, mine string // the open block's "time number", and whether ours
	var said string     // a line before the attach's answer
	attached := false
	var err error
	for {
		var line []byte
		line, err = readLine(br, block != nil)
		if err != nil {
			break
		}
		if block != nil {
			if s, ok := blockEnd(line, id); ok {
				out := strings.TrimSuffix(block.String(), "\n")
				switch {
				case mine == "1":
					ct.answer(out, s == "%error")
				case !attached:
					attached = true
					if s == "%error" {
						ct.attached <- &Error{Stderr: out, Err: errors.New("failed")}
					} else {
						ct.attached <- nil
					}
				}
				block = nil
				continue
			}
			block.Write(line)
			block.WriteByte('\n')
			continue
		}
		if len(line) == 0 || line[0] != '%' {
			if !attached && len(line) > 0 {
				said = string(line)
			}
			continue
		}
		if bytes.HasPrefix(line, []byte("%begin ")) {
			f := strings.Fields(string(line))
			if len(f) >= 4 {
				id, mine = f[1]+" "+f[2], f[3]
				block = &bytes.Buffer{}
			}
			continue
		}
		n := parseNote(line)
		ct.notes.put(n)
		if n.Name == "exit" {
			err = errors.New("tmux control client exited: " + strings.Join(n.Args, " "))
			break
		}
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = ErrClosed
	}
	if !attached {
		ct.attached <- &Error{Stderr: said, Err: err}
	}
	ct.mu.Lock()
	ct.err = err
	for _, w := range ct.waits {
		w <- reply{err: err}
	}
	ct.waits = nil
	ct.mu.Unlock()
	close(ct.done)
}

// answer hands a block to the oldest command waiting.
func (ct *Control) answer(out string, failed bool) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if len(ct.waits) == 0 {
		return
	}
	w := ct.waits[0]
	ct.waits = ct.waits[1:]
	if failed {
		w <- reply{err: &Error{Stderr: out, Err: errors.New("failed")}}
		return
	}
	w <- reply{out: out}
}

// blockEnd reports whether line closes the block id, and how.
func blockEnd(line []byte, id string) (string, bool) {
	for _, end := range []string{"%end", "%error"} {
		if bytes.HasPrefix(line, []byte(end+" ")) {
			f := strings.Fields(string(line))
			if len(f) >= 3 && f[1]+" "+f[2] == id {
				return end, true
			}
		}
	}
	return "", false
}

// readLine reads one line without its newline. A notification longer
// than the buffer keeps only its start (an %output's pane is in its first
// bytes); a block's line is read whole.
func readLine(br *bufio.Reader, whole bool) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		head := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = br.ReadSlice('\n')
			if whole {
				head = append(head, line...)
			}
		}
		if err != nil {
			return nil, err
		}
		return bytes.TrimRight(head, "\r\n"), nil
	}
	if err != nil {
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// parseNote reads "%name word word … [: value]".
func parseNote(line []byte) Note {
	s := string(line[1:])
	name, rest, _ := strings.Cut(s, " ")
	n := Note{Name: name}
	if name == "output" || name == "extended-output" {
		// "%output %3 <escaped bytes>": only the pane matters.
		pane, _, _ := strings.Cut(rest, " ")
		n.Name, n.Args = "output", []string{pane}
		return n
	}
	if name == "subscription-changed" {
		if words, value, ok := strings.Cut(rest, " : "); ok {
			n.Args, n.Value = strings.Fields(words), value
			return n
		}
	}
	n.Args = strings.Fields(rest)
	return n
}

// ListPanes is Client.ListPanes through the control client.
func (ct *Control) ListPanes(ctx context.Context, format string) ([]string, error) {
	out, err := ct.Run(ctx, "list-panes -a -F "+quoteArg(format))
	if err != nil || out == "" {
		return nil, err
	}
	return strings.Split(out, "\n"), nil
}

// Capture is Client.Capture through the control client (no history).
func (ct *Control) Capture(ctx context.Context, target string, history int) (string, error) {
	return ct.Run(ctx, "capture-pane -p -t "+quoteArg(target))
}

// Display is Client.Display through the control client.
func (ct *Control) Display(ctx context.Context, target, format string) (string, error) {
	return ct.Run(ctx, "display-message -p -t "+quoteArg(target)+" "+quoteArg(format))
}

// quoteArg quotes one argument for tmux's command parser: single quotes,
// inside which only ' itself needs care.
func quoteArg(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
