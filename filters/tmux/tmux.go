// Package tmux runs the tmux client: formats, capture-pane, send-keys and
// user options. Every ag program that talks to tmux goes through it, so the
// server it reaches (-S socket / -L name / $TMUX) is chosen in one place.
package tmux

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// Client reaches one tmux server.
type Client struct {
	Bin    string // "tmux" if empty
	Socket string // -S path
	Name   string // -L name

	once   sync.Once
	bin    string // Bin found in $PATH
	binErr error

	verOnce sync.Once
	ver     string // what tmux -V says, "" if it said nothing
}

// Error is a failed tmux command, with what tmux said.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("tmux %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNoServer means no tmux server answered.
var ErrNoServer = errors.New("no tmux server")

// Command is the argv (program first) that runs one tmux command on c's
// server, for a caller that starts it itself (a popup that must outlive the
// call). -u: without it, a tmux client in a locale that is not UTF-8 (a
// systemd user service has none) prints tabs and every non-ASCII character
// as "_", which breaks the fields ag asks for and the agents' screens.
func (c *Client) Command(args ...string) []string {
	bin := c.Bin
	if bin == "" {
		bin = "tmux"
	}
	return append([]string{bin}, c.argv(args)...)
}

func (c *Client) argv(args []string) []string {
	a := []string{"-u"}
	if c.Socket != "" {
		a = append(a, "-S", c.Socket)
	} else if c.Name != "" {
		a = append(a, "-L", c.Name)
	}
	return append(a, args...)
}

// Run runs one tmux command and returns its stdout. It starts tmux with
// os.StartProcess rather than os/exec: ag-notify asks tmux every few
// seconds while a notification is shown, and exec.Cmd's path lookup, a
// goroutine per pipe and a context watcher were a third of each call.
func (c *Client) Run(ctx context.Context, args ...string) ([]byte, error) {
	path, err := c.path()
	if err != nil {
		return nil, &Error{Args: args, Err: err}
	}
	null, err := devNull()
	if err != nil {
		return nil, &Error{Args: args, Err: err}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, &Error{Args: args, Err: err}
	}
	defer outR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		outW.Close()
		return nil, &Error{Args: args, Err: err}
	}
	defer errR.Close()
	p, err := os.StartProcess(path, append([]string{path}, c.argv(args)...), &os.ProcAttr{Files: []*os.File{null, outW, errW}})
	outW.Close()
	errW.Close()
	if err != nil {
		return nil, &Error{Args: args, Err: err}
	}
	stop := context.AfterFunc(ctx, func() { p.Kill() })
	// stdout to its end, then stderr: tmux writes a line of error at most,
	// far below a pipe's capacity, so it never blocks on stderr meanwhile.
	out, _ := io.ReadAll(outR)
	errb, _ := io.ReadAll(errR)
	st, werr := p.Wait()
	stop()
	switch {
	case ctx.Err() != nil:
		return nil, &Error{Args: args, Stderr: string(errb), Err: ctx.Err()}
	case werr != nil:
		return nil, &Error{Args: args, Stderr: string(errb), Err: werr}
	case !st.Success():
		s := string(errb)
		if strings.Contains(s, "no server running") || strings.Contains(s, "error connecting to") {
			return nil, &Error{Args: args, Stderr: s, Err: ErrNoServer}
		}
		return nil, &Error{Args: args, Stderr: s, Err: errors.New(st.String())}
	}
	return out, nil
}

// path is the tmux binary, looked up in $PATH once per Client.
func (c *Client) path() (string, error) {
	c.once.Do(func() {
		bin := c.Bin
		if bin == "" {
			bin = "tmux"
		}
		c.bin, c.binErr = exec.LookPath(bin)
	})
	return c.bin, c.binErr
}

// devNull is tmux's stdin, opened once.
var devNull = sync.OnceValues(func() (*os.File, error) { return os.Open(os.DevNull) })

// Display expands a format for a target pane (display-message -p).
func (c *Client) Display(ctx context.Context, target, format string) (string, error) {
	args := []string{"display-message", "-p"}
	if target != "" {
		args = append(args, "-t", target)
	}
	out, err := c.Run(ctx, append(args, format)...)
	return strings.TrimRight(string(out), "\n"), err
}

// Capture returns the visible text of a pane (and lines of history above it).
func (c *Client) Capture(ctx context.Context, target string, history int) (string, error) {
	args := []string{"capture-pane", "-p", "-t", target}
	if history > 0 {
		args = append(args, "-S", fmt.Sprint(-history))
	}
	out, err := c.Run(ctx, args...)
	return string(out), err
}

// SendKeys sends key names (Escape, Enter, 1, C-c) to a pane.
func (c *Client) SendKeys(ctx context.Context, target string, keys ...string) error {
	_, err := c.Run(ctx, append([]string{"send-keys", "-t", target}, keys...)...)
	return err
}

// SendLiteral types text into a pane as literal characters (send-keys -l).
func (c *Client) SendLiteral(ctx context.Context, target, text string) error {
	_, err := c.Run(ctx, "send-keys", "-t", target, "-l", "--", Arg(text))
	return err
}

// Arg is s as one argument of a tmux command line that tmux keeps as it
// is. tmux reads an argument ending in ";" as the end of a command (the
// ";" dropped: "end;" typed "end", ";" alone typed nothing) and one ending
// in "\;" as ending in ";": a backslash before the last ";" gives it
// back whatever comes before it.
func Arg(s string) string {
	if !strings.HasSuffix(s, ";") {
		return s
	}
	return s[:len(s)-1] + `\;`
}

// Paste puts text into a pane as one paste (paste-buffer -p: with the
// bracketed paste markers when the program there asked for them), through
// a buffer of this process's own, deleted after.
func (c *Client) Paste(ctx context.Context, target, text string) error {
	buf := "ag-paste-" + strconv.Itoa(os.Getpid())
	_, err := c.Run(ctx, "set-buffer", "-b", buf, "--", Arg(text), ";", "paste-buffer", "-p", "-d", "-b", buf, "-t", target)
	return err
}

// ListPanes returns one line per pane of every session, in format.
func (c *Client) ListPanes(ctx context.Context, format string) ([]string, error) {
	out, err := c.Run(ctx, "list-panes", "-a", "-F", format)
	if err != nil {
		return nil, err
	}
	s := strings.TrimRight(string(out), "\n")
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\n"), nil
}
