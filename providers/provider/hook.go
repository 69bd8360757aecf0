package provider

import (
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/configtx"
)

// HookContext is what ag-hook knows about the moment and the process that
// ran it; MapHook copies it onto every event it returns.
type HookContext struct {
	Now  time.Time // the hook's wall clock: every event's "t"
	PID  int       // the agent's process (found by walking ag-hook's ancestors)
	TTY  string    // its controlling terminal, "/dev/pts/3"; "" if none
	Pane string    // $TMUX_PANE, "%12"
	Cwd  string    // ag-hook's working directory; a payload's own cwd wins
	Host string    // short host name
	// Event is the hook event the agent's command line names after the
	// agent ("ag-hook copilot preToolUse"), for agents whose payloads do
	// not say which hook they are; "" when none is given.
	Event string
	// Getenv reads the hook's environment, the agent's own (Claude's
	// CLAUDE_JOB_DIR says a session runs in the background); nil: none.
	Getenv func(key string) string
}

// Env is the hook's environment variable key, "" when unset or unknown.
func (hc *HookContext) Env(key string) string {
	if hc.Getenv == nil {
		return ""
	}
	return hc.Getenv(key)
}

// Place sets where e was observed: the agent's process, terminal, pane and
// host, and cwd — the payload's own (payloadCwd) when it has one, else
// ag-hook's.
func (hc *HookContext) Place(e *event.Event, payloadCwd string) {
	e.PID, e.TTY, e.Pane, e.Host = hc.PID, hc.TTY, hc.Pane, hc.Host
	e.Cwd = payloadCwd
	if e.Cwd == "" {
		e.Cwd = hc.Cwd
	}
}

// Hooked is an agent whose hooks run `ag-hook <id>` with a payload on stdin.
type Hooked interface {
	Provider
	// MapHook turns one hook payload into the events it means: none for a
	// hook ag does not map, an error for a payload it cannot read.
	MapHook(payload []byte, hc HookContext) ([]event.Event, error)
	// ProcessNames are the comm names of the agent's own process. ag-hook
	// walks up from its parent and takes the first ancestor with one of
	// these names as the agent (hooks often run under an `sh -c` wrapper).
	ProcessNames() []string
}

// InstallState is what an agent's config says about ag's hooks.
type InstallState int

const (
	NotInstalled InstallState = iota // no handler of ours
	Installed                        // exactly what install would write
	NeedsRepair                      // ours, but partial, hand-edited, stale or duplicated
	// Untrusted: installed as it should be, but the agent runs none (or
	// not all) of the hooks until the user trusts them (Codex's /hooks).
	Untrusted
)

func (s InstallState) String() string {
	switch s {
	case Installed:
		return "installed"
	case NeedsRepair:
		return "needs repair"
	case Untrusted:
		return "not trusted"
	}
	return "not installed"
}

// InstallEnv is what an Installer needs to know.
type InstallEnv struct {
	Env  Env    // HOME, the agent's config-dir variables
	Hook string // absolute path of the ag-hook to write into the config
	// Version is ag's version, for files ag writes whole that name it
	// (a plugin's sentinel line); "" reads as "devel".
	Version string
	DryRun  bool // compute and report, write nothing
	// Tx is the transaction every file is read and staged through, so one
	// `ag-hook install` writes all its files or none (see configtx). Nil:
	// Edit makes one for the call and commits it (tests, a single edit).
	Tx *configtx.Tx
}

// Edit runs an install step f with ie's transaction. With a transaction
// of the caller's, f only stages: the caller commits everything at the
// end. Without one, f gets a transaction of its own, committed when f
// succeeds (not when DryRun), and the result names the backup taken.
func (ie InstallEnv) Edit(f func(tx *configtx.Tx) (InstallResult, error)) (InstallResult, error) {
	if ie.Tx != nil {
		return f(ie.Tx)
	}
	tx := configtx.New()
	res, err := f(tx)
	if err != nil || ie.DryRun {
		return res, err
	}
	changes, err := tx.Commit()
	if err != nil {
		return res, err
	}
	for _, c := range changes {
		if c.Path == res.Path {
			res.Backup = c.Backup
		}
	}
	return res, nil
}

// InstallResult says what Install or Uninstall did (or, dry, would do).
type InstallResult struct {
	Path    string   // the config file
	Backup  string   // its backup (Edit without a caller's Tx sets it); "" if none
	Changed bool     // the file was (or would be) rewritten
	Actions []string // one line per change, for people: "+ Stop: '/x/ag-hook' claude"
}

// InstallStatus is the state of one agent's config, read from the file.
type InstallStatus struct {
	State   InstallState
	Path    string
	Reasons []string // why NeedsRepair: "Stop: missing", "PreToolUse: 2 handlers"
	// Hint says what the user must do that ag cannot (trust the hooks in
	// the agent), for Untrusted.
	Hint string
}

// Installer is an agent whose config ag-hook can add its hooks to. Every
// method edits or reads only handlers ag owns and fails, touching nothing,
// on a file it cannot parse.
type Installer interface {
	Provider
	ConfigPath(env Env) string
	Install(ie InstallEnv) (InstallResult, error)
	Uninstall(ie InstallEnv) (InstallResult, error)
	Status(ie InstallEnv) (InstallStatus, error)
}

// ApprovalEstimator is an agent whose hooks never say that it asks the
// user to approve a call (Cursor: preToolUse fires before every call, and
// nothing when the call waits): a call its hooks started and did not end
// within ApprovalEstimate is taken as a probable approval wait, marked as
// estimated until the pane shows the prompt (see ag-fold).
type ApprovalEstimator interface {
	Provider
	ApprovalEstimate() time.Duration
}
