// Package defhooks finds the hook dialect an agent definition declares,
// for ag-hook: an agent id with no Go mapper may be a Claude-compatible
// agent the user defined ($XDG_CONFIG_HOME/ag/agents/ID.toml, [hooks]).
// It reads only that section, leniently: a hook never fails, and a file
// ag-detect --check-agents refuses is the user's to mend, not the
// agent's to pay for. Only ag-hook links it (and go-toml with it): the
// full reader, providers/agentdef, brings screen rules and keys along.
package defhooks

import (
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/agentdef/builtin"
	"github.com/agwatch/ag/providers/hookdialect"
)

// maxSize is agentdef.MaxSize: a larger file is no definition.
const maxSize = 64 << 10

// validID is agentdef's rule for an agent id (lower-case letters, digits,
// - and _, a letter first, at most 32): nothing that could leave the
// folder it names a file in. By hand: a hook compiles no pattern.
func validID(s string) bool {
	if s == "" || len(s) > 32 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Find is the dialect of agent's definition — the user's file, else the
// built-in one — or nil when there is none, it declares no [hooks], or it
// cannot be read.
func Find(env paths.Env, agent string) *hookdialect.Dialect {
	if !validID(agent) {
		return nil
	}
	path := filepath.Join(paths.AgentsDir(env), agent+".toml")
	data, ok := readSmall(path)
	if !ok {
		if data, ok = builtin.Read(agent); !ok {
			return nil
		}
	}
	var f struct {
		ID    string               `toml:"id"`
		Hooks *hookdialect.Dialect `toml:"hooks"`
	}
	if toml.Unmarshal(data, &f) != nil || f.ID != agent || f.Hooks == nil {
		return nil
	}
	if f.Hooks.Agent == "" {
		f.Hooks.Agent = agent
	}
	if f.Hooks.Agent != agent || len(f.Hooks.Processes) == 0 {
		return nil
	}
	return f.Hooks
}

// readSmall reads a regular file of at most maxSize bytes: a FIFO named
// like a definition must not hold a hook up.
func readSmall(path string) ([]byte, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSize {
		return nil, false
	}
	data, err := os.ReadFile(path)
	return data, err == nil
}
