// Package auggie is the Auggie (Augment CLI, @augmentcode/auggie) provider:
// hook install into ~/.augment/settings.json, the session files Auggie
// rewrites whole (~/.augment/sessions/<id>.json), detection data, pane
// rules for its approval dialog (no hook reports it), key maps and
// resume/spawn templates. The hook payload mapping is in auggiehook, which
// ag-hook links alone.
//
// Auggie talks to Augment's own backend and runs only with an Augment
// login: here it ran against a stand-in of that backend
// (t/fakeapi/augment), which is how everything in this package was
// verified (Auggie 0.36.0).
package auggie

import (
	"path/filepath"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/auggie/auggiehook"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Auggie's agent id in events.
const ID = auggiehook.ID

// Provider is Auggie.
type Provider struct{}

// New returns the Auggie provider.
func New() *Provider { return &Provider{} }

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Auggie" }

var _ provider.OneSession = (*Provider)(nil)

// OneSessionPerProcess: an auggie process runs one conversation at a time
// (/new starts another in the same process).
func (*Provider) OneSessionPerProcess() bool { return true }

// Dir is Auggie's folder, ~/.augment. --augment-cache-dir moves it for one
// run; no variable does, so ag cannot follow that.
func Dir(env paths.Env) string { return filepath.Join(paths.Home(env), ".augment") }

// SettingsFile is the user settings.json Auggie reads its hooks from (and
// writes its own choices to: indexingDenyDirs, the model).
func SettingsFile(env paths.Env) string { return filepath.Join(Dir(env), "settings.json") }

// SessionsDir holds one file per conversation, <id>.json.
func SessionsDir(env paths.Env) string { return filepath.Join(Dir(env), "sessions") }
