package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/cmd/internal/evfilter"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/fold"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers"
)

const long = `ag-fold reads ag events on stdin, keeps one state per session (agent +
session; a pane or process seen without a session is keyed by its pane)
and writes a "state" event on stdout whenever one changes. Statuses: idle,
working, waiting (attention permission, question or plan; tool), done (turn
finished), failed (reason), gone (session ended or its process died).

Each state event carries agent, session, pane, pid, tty, cwd, branch,
transcript, status, attention, tool, text, prompt, run, pending, since
(time of the last status edge), gen (bumped whenever status, attention or
tool change), token ("<since unix ms>.<gen>", what an action must quote)
and the meters (model, tokens summed over the session, context, cost_usd,
limits), so a reader never needs the events before it. While more than
one session of one process of an agent that hosts many (OpenCode's
server) waits, each of those waits carries ambiguous: true, and no
buttons or keys are offered for it.

Which source wins: an observation older than the one that set the current
status does not change it, and at the same moment a hook outranks the
transcript. Sub-agent events never end the session's wait or turn, but a
sub-agent's prompt is the session's wait. A compaction typed at the prompt
(/compact) ends idle. When an agent whose process runs one session at a
time speaks for a new session, or takes a prompt in a session it left,
the one it ran meanwhile is gone. The pane
may raise a session to waiting and relabel a hook's permission wait as a
question or plan; it ends a wait when it shows the agent at work after the
prompt (answered), and lowers a hook's wait to idle only when it shows the
idle composer and the wait is older than --grace. The idle composer also
lowers a working session with nothing in flight to idle when nothing else
is heard for 5 s (Escape before Claude's first output writes nothing). A
transcript tool.end newer than a wait ends it (Codex approvals resolve
with no hook). Interrupt returns to idle; turn.end with pending background
agents stays working. A transcript's failure or interrupt a moment before a
hook's end of the turn says how that turn ended, and for an agent whose
hooks alone say when its turns end (Gemini CLI) a transcript's turn.end is
no news once its hooks were heard.
A session that never learnt its process (no pane, no pid: Codex's shared
background server runs hooks with no terminal) takes the pane of the one
pane-only sighting (ag-detect) of its agent in its directory, when exactly
one fits.

The state file ($AG_DIR/state.json, else $XDG_RUNTIME_DIR/ag/state.json) is
replaced atomically after each burst of input, at most every --debounce,
and at the end. Gone sessions stay in it for --keep-gone. While stdin is
open, every --check the sessions' processes are checked (kill 0, and on
Linux the process start time against pid reuse, and a zombie — exited,
not yet reaped — is dead); dead ones become gone.
A session waiting on a prompt to run a command is working again as soon
as that command is found running under its agent's process (no hook says
so before the command ends). For an agent whose hooks never report a
prompt (Cursor), a tool call they started that has not ended after 10 s
is a probable approval wait: waiting with reason "estimated" (no
buttons), until the pane shows the prompt (then it is a wait like any
other) or anything else (working again), or the call, the turn or the
session ends; calls are kept apart by tool id.
At the end of input the check and the time-driven rules run once more.

Input events are not passed through unless --pass is given. Malformed lines
are reported as "ag-fold: <stdin>:LINE: why" and skipped; the exit status
is then 2. --snapshot prints the current states and exits 0, or 1 when none
(or none matching --where) exist.

With --tmux it also keeps tmux user options in step with the states: on
each session's pane @ag_agent, @ag_session, @ag_status, @ag_icon,
@ag_attention, @ag_tool, @ag_model, @ag_context_left, @ag_limit_5h,
@ag_limit_week; on each window the worst of its agent panes (waiting >
failed > working > done > idle) as @ag_window_status, @ag_window_icon,
@ag_window_agent, @ag_window_attention, @ag_window_tool; globally the
counts @ag_waiting, @ag_failed, @ag_working, @ag_done and @ag_summary
("⏳2 ✓1"). One tmux command per change, with only the values that
changed; a session's options are cleared when it is gone, and all of them
when ag-fold ends. A tmux error is reported once and retried; it never
stops the fold. --snapshot --tmux pushes the state file's states once.

Hosts: every state carries its host ($AG_HOST, else the system's host
name); sessions, panes and pids of two hosts never mix, and only this
host's processes are checked. A state of another host (that host's ag-fold,
over ssh or an MQTT broker) is taken as it is when newer than the one held
(by t, then gen), written out, and kept in the state file and the tmux
counts (never on this server's panes). A host.down event (the link to a
host dropped) marks its sessions stale ("stale":"lost touch with HOST:
why") until it sends them again; they are dropped if it stays away for
--keep-gone. --publish CMD runs CMD
(sh -c) with every current state on stdin after the states change, at
most every second and again every --publish-every, trying a failed run
again: a retained snapshot for late subscribers.

--snapshot --format TEMPLATE prints one line for every session at once,
e.g. --format '{{.Summary}}' gives "⏳2 ✓1"; nothing (exit 1) without a
state file.`

type options struct {
	cli.Common
	cli.Filter
	Snapshot bool          `long:"snapshot" description:"print the current states once and exit: folded from stdin when it is a pipe or file with data, else read from the state file"`
	Pass     bool          `long:"pass" description:"also write every event read to stdout, before the states it changed"`
	State    string        `long:"state" value-name:"FILE" description:"the state file to write or read (default $AG_DIR/state.json, else $XDG_RUNTIME_DIR/ag/state.json)"`
	NoState  bool          `long:"no-state" description:"do not write the state file"`
	Grace    time.Duration `long:"grace" value-name:"DURATION" default:"30s" description:"how old a hook's wait must be before the pane's idle composer lowers it to idle"`
	KeepGone time.Duration `long:"keep-gone" value-name:"DURATION" default:"10m" description:"how long a gone session stays in the states"`
	Check    time.Duration `long:"check" value-name:"DURATION" default:"2s" description:"how often to check that sessions' processes are alive; 0 never"`
	tmuxOptions
	glanceOptions
	Debounce     time.Duration `long:"debounce" value-name:"DURATION" default:"100ms" description:"write the state file at most this often while input keeps coming"`
	Publish      string        `long:"publish" value-name:"CMD" unquote:"false" description:"after the states change (at most every second), run CMD with sh -c and every current state as NDJSON on stdin, e.g. a retained MQTT snapshot: mosquitto_pub -r -s -t ag/$HOST/snapshot; a failed run is tried again"`
	PublishEvery time.Duration `long:"publish-every" value-name:"DURATION" default:"60s" description:"with --publish: run it this often even when nothing changed (a confirmation); 0 never"`
}

// folder is one run of ag-fold.
type folder struct {
	prog    cli.Program
	opts    options
	env     paths.Env
	now     func() time.Time
	alive   func(fold.Proc) bool
	running commands // which waiting commands already run (answered.go)
	stdout  *bufio.Writer
	out     *cli.Writer
	filter  *evfilter.Filter
	fold    *fold.Folder

	pub       *publisher // --publish; nil without
	path      string     // state file; "" with --no-state
	written   uint64     // fold.Changes() when the state file was last written
	lastWrite time.Time
	stateErr  string // last state-file error reported, so it is said once
	wrote     bool   // something reached stdout
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newFolder(stdout, stderr, paths.OS(), time.Now).main(ctx, args, stdin)
}

func newFolder(stdout, stderr io.Writer, env paths.Env, now func() time.Time) *folder {
	f := &folder{
		prog: cli.Program{Name: "ag-fold", Usage: "[--snapshot] [OPTIONS] < events",
			Short: "fold agent events into one state per session", Long: long,
			Stdout: stdout, Stderr: stderr},
		env: env, now: now, alive: newLiveness(), running: running,
	}
	f.stdout = bufio.NewWriterSize(&countWriter{w: stdout, n: &f.wrote}, 64<<10)
	f.out = cli.NewWriter(f.stdout)
	return f
}

func (f *folder) main(ctx context.Context, args []string, stdin io.Reader) int {
	rest, done, code := f.prog.Parse(&f.opts, args)
	if done {
		return code
	}
	if len(rest) > 0 {
		f.prog.Errorf("unexpected argument %q (events come on stdin; see ag-fold --help)", rest[0])
		return cli.ExitError
	}
	var err error
	if f.filter, err = evfilter.New(f.opts.Filter); err != nil {
		f.prog.Errorf("%v", err)
		return cli.ExitError
	}
	f.fold = fold.New(fold.Config{PaneGrace: f.opts.Grace, KeepGone: f.opts.KeepGone,
		OneSession: providers.OneSessionPerProcess, ManySessions: providers.ManySessionsPerProcess,
		HookEnds: providers.HookEndsTurns, Estimate: providers.ApprovalEstimates(), Self: hostname.Of(f.env)})
	f.path = f.opts.State
	if f.path == "" {
		f.path = paths.StateFile(f.env)
	}
	for _, o := range []struct {
		name string
		set  bool
	}{{"--format", f.opts.Format != ""}, {"--table", f.opts.Table}} {
		if o.set && !f.opts.Snapshot {
			f.prog.Errorf("%s goes with --snapshot (see ag-fold --help)", o.name)
			return cli.ExitError
		}
	}
	if f.opts.Table {
		return f.table(ctx, stdin)
	}
	if f.opts.Snapshot && (f.opts.Format != "" || f.opts.Push) {
		return f.glance(ctx, stdin, f.opts.glanceOptions, f.opts.tmuxOptions)
	}
	if f.opts.Snapshot {
		return f.snapshot(ctx, stdin)
	}
	if f.opts.NoState {
		f.path = ""
	}
	return f.follow(ctx, stdin)
}

// snapshot prints the states folded from stdin, or the state file's.
func (f *folder) snapshot(ctx context.Context, stdin io.Reader) int {
	in, fromStdin := stdinData(stdin)
	var states []event.Event
	bad := 0
	if fromStdin {
		r := f.prog.NewReader(in, "<stdin>")
		var e event.Event
		for ctx.Err() == nil {
			if _, err := r.Next(&e); err != nil {
				if !errors.Is(err, io.EOF) {
					f.prog.Errorf("<stdin>: %v", err)
					return cli.ExitError
				}
				break
			}
			f.fold.Apply(&e)
		}
		if ctx.Err() != nil {
			return cli.ExitInterrupted
		}
		bad = r.Bad
		f.settle()
		states = f.fold.States()
	} else {
		var err error
		if states, err = state.Read(f.path); err != nil {
			if errors.Is(err, state.ErrNoFile) {
				f.prog.Errorf("no state file at %s (is ag-fold running?)", f.path)
				return cli.ExitNoMatch
			}
			f.prog.Errorf("%s: %v", f.path, err)
			return cli.ExitError
		}
	}
	for i := range states {
		if err := f.filter.Write(f.out, &states[i]); err != nil {
			if cli.IsClosedPipe(err) {
				return cli.ExitOK
			}
			f.prog.Errorf("%v", err)
			return cli.ExitError
		}
	}
	if err := f.stdout.Flush(); err != nil && !cli.IsClosedPipe(err) {
		f.prog.Errorf("%v", err)
		return cli.ExitError
	}
	switch {
	case bad > 0:
		return cli.ExitError
	case !f.wrote:
		return cli.ExitNoMatch
	}
	return cli.ExitOK
}

// stdinData returns stdin to read when it is a pipe or a file with data; a
// terminal, /dev/null or an empty input means "read the state file".
func stdinData(stdin io.Reader) (io.Reader, bool) {
	if stdin == nil {
		return nil, false
	}
	if file, ok := stdin.(*os.File); ok {
		fi, err := file.Stat()
		if err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			return nil, false
		}
	}
	br := bufio.NewReader(stdin)
	if _, err := br.Peek(1); err != nil {
		return nil, false
	}
	return br, true
}

// settle runs what the end of input or a tick decides: processes that
// died, prompts answered (their command runs), grace periods, gone
// sessions to drop.
func (f *folder) settle() []event.Event {
	now := f.now()
	var out []event.Event
	if f.opts.Check > 0 {
		for _, p := range f.fold.Procs() {
			if f.alive(p) {
				continue
			}
			e := event.New(event.ProcDown, now, "", "")
			e.Src, e.PID, e.Reason = event.SrcProc, p.PID, "process exited"
			e.ID = event.MakeID(event.SrcProc, "down", itoa(p.PID), p.Seen.String())
			out = append(out, f.fold.Apply(&e)...)
		}
		out = append(out, f.answers(context.Background(), now)...)
	}
	return append(out, f.fold.Tick(now)...)
}

// countWriter notes that something was written, for the exit status.
type countWriter struct {
	w io.Writer
	n *bool
}

func (c *countWriter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		*c.n = true
	}
	return c.w.Write(p)
}
