// Package paths says where ag keeps its files: the spool that hooks append
// to and the state file ag-fold keeps.
package paths

import (
	"os"
	"path/filepath"
)

// Env looks up an environment variable; os.Getenv in programs, a map in tests.
type Env func(string) string

// OS is the process environment.
func OS() Env { return os.Getenv }

// Home is $HOME, else the user's home directory as the OS knows it.
func Home(env Env) string {
	if h := env("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Dir is the folder named by the environment variable key, when it names
// one: the XDG Base Directory spec says a relative path is invalid and
// must be ignored, and ag holds AG_DIR to the same rule — a hook runs in
// the agent's working directory, where a relative one would plant folders.
func Dir(env Env, key string) string {
	if d := env(key); filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	return ""
}

// StateDir is $AG_DIR, else $XDG_STATE_HOME/ag, else ~/.local/state/ag.
func StateDir(env Env) string {
	if d := Dir(env, "AG_DIR"); d != "" {
		return d
	}
	if d := Dir(env, "XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "ag")
	}
	return filepath.Join(Home(env), ".local", "state", "ag")
}

// Spool is the append-only file hooks write events to.
func Spool(env Env) string { return filepath.Join(StateDir(env), "spool.ndjson") }

// RotatedSpool is where the spool goes when it grows past its size.
func RotatedSpool(env Env) string { return Spool(env) + ".1" }

// StateFile is $AG_DIR/state.json, else $XDG_RUNTIME_DIR/ag/state.json,
// else state.json in the state dir.
func StateFile(env Env) string {
	if d := Dir(env, "AG_DIR"); d != "" {
		return filepath.Join(d, "state.json")
	}
	if d := Dir(env, "XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "ag", "state.json")
	}
	return filepath.Join(StateDir(env), "state.json")
}
