// Package cline is the Cline CLI provider (npm `cline`, a native binary):
// hook scripts ag installs in Cline's hooks directory (clinehook maps what
// they hand to ag-hook), the session database that says when a call waits
// for approval, the session transcripts that carry the prompts and the
// meters, detection, keys and command lines.
//
// A call waits only when tool auto-approve is off: it is on by default
// (Shift+Tab in the TUI, "toolAutoApprove" in global-settings.json, the
// --auto-approve flag), and then Cline asks about nothing. No hook fires at
// the dialog — PreToolUse fires before it, for every call — but Cline marks
// the session "pending" in its database for exactly as long as the dialog
// is up, and ag reads that (see Store). ag never guesses a wait from a
// call that merely runs long.
package cline

import (
	"path/filepath"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/cline/clinehook"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Cline CLI's agent id in events.
const ID = clinehook.ID

// Provider is Cline CLI.
type Provider struct{}

// New returns the Cline provider.
func New() *Provider { return &Provider{} }

var (
	_ provider.Hooked       = (*Provider)(nil)
	_ provider.Installer    = (*Provider)(nil)
	_ provider.OneSession   = (*Provider)(nil)
	_ provider.ProcDetector = (*Provider)(nil)
	_ provider.Commanded    = (*Provider)(nil)
	_ provider.Transcripts  = (*Provider)(nil)
	_ provider.Stores       = (*Provider)(nil)
)

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Cline CLI" }

// OneSessionPerProcess: one session at a time; /clear starts another in
// the same process.
func (*Provider) OneSessionPerProcess() bool { return true }

func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return clinehook.Mapper{}.MapHook(raw, hc)
}

func (*Provider) ProcessNames() []string { return clinehook.Mapper{}.ProcessNames() }

// Dir is Cline's directory: $CLINE_DIR, else ~/.cline (the CLI's --config
// names another for one run).
func Dir(env paths.Env) string {
	if d := env("CLINE_DIR"); d != "" && filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(paths.Home(env), ".cline")
}

// DataDir is where Cline keeps its state: $CLINE_DATA_DIR, else
// <Dir>/data.
func DataDir(env paths.Env) string {
	if d := env("CLINE_DATA_DIR"); d != "" && filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(Dir(env), "data")
}

// SessionsDir holds a folder per session, <id>/<id>.json (the manifest)
// and <id>/<id>.messages.json: $CLINE_SESSION_DATA_DIR, else
// <DataDir>/sessions.
func SessionsDir(env paths.Env) string {
	if d := env("CLINE_SESSION_DATA_DIR"); d != "" && filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(DataDir(env), "sessions")
}

// DBPath is the sessions database: $CLINE_DB_DATA_DIR/sessions.db, else
// <DataDir>/db/sessions.db.
func DBPath(env paths.Env) string {
	dir := env("CLINE_DB_DATA_DIR")
	if dir == "" || !filepath.IsAbs(dir) {
		dir = filepath.Join(DataDir(env), "db")
	}
	return filepath.Join(dir, "sessions.db")
}

// HooksDir is the global hooks directory ag installs into: <Dir>/hooks
// (Cline also runs ~/Documents/Cline/Hooks and a workspace's
// .clinerules/hooks and .cline/hooks, which ag leaves alone).
func HooksDir(env paths.Env) string { return filepath.Join(Dir(env), "hooks") }

// ProcRules: npm links `cline` to the native binary
// (@cline/cli-<os>-<arch>/bin/cline); the package's own launcher is `node
// …/cline/bin/cline`, whose child is the binary (or its copy `.cline`).
// The same binary runs the hub daemon, `cline --cline-hub-daemon …`,
// started by the TUI, detached, and left running after it: no session.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names:                []string{"cline", ".cline"},
		Paths:                []string{"/@cline/cli-"},
		NotArgs:              []string{"--cline-hub-daemon"},
		LauncherInterpreters: []string{"node"},
	}
}

// Commands, from `cline --help` (3.0.65): `--id <id>` resumes a session in
// the TUI (its exit prints "cline --id <id>"); `-i/--tui <prompt>` opens
// the TUI with the prompt submitted (a positional prompt alone runs one
// task and exits, approving everything); -m takes the model id of the
// configured provider. No fork: nothing in --help makes a new session of
// an old one's history.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "cline",
		Resume:    "{bin} --id '{id}'",
		Spawn:     "{bin} --tui '{prompt}'",
		ModelFlag: "-m",
	}
}
