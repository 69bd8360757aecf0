package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/agwatch/ag/providers/codex/codexhook"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

// Codex skips hooks nobody has reviewed. Reviewing one in /hooks records
// [hooks.state."<hooks.json>:<event_snake>:<group>:<handler>"] trusted_hash
// = "sha256:…" in config.toml (verified on 0.171.0); editing a handler
// changes its hash, and Codex asks again.

// HandlerTrust is one ag-hook handler in hooks.json and whether Codex has
// recorded the user's trust in it.
type HandlerTrust struct {
	Event   string
	Key     string // Codex's key: "<hooks.json>:<event_snake>:<group>:<handler>"
	Trusted bool   // [hooks.state."<key>"] has a trusted_hash and is not disabled
}

// Trust is the trust state of every ag-hook handler.
type Trust []HandlerTrust

// Untrusted counts handlers Codex will skip.
func (t Trust) Untrusted() int {
	n := 0
	for _, h := range t {
		if !h.Trusted {
			n++
		}
	}
	return n
}

// HookTrust reads which ag-hook handlers in hooks.json Codex trusts: it
// records a reviewed handler as [hooks.state."<file>:<event>:<i>:<j>"]
// trusted_hash = "sha256:…" in config.toml. Only presence is checked; a
// handler edited after review has a stale hash that Codex (not ag) sees.
func HookTrust(env provider.Env) (Trust, error) {
	path := HooksFile(env)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var hf struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &hf); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	state, err := trustState(ConfigFile(env))
	if err != nil {
		return nil, err
	}
	names := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		names = append(names, real)
	}
	owns := hookjson.OwnedBy("ag-hook", ID)
	var out Trust
	for _, ev := range codexhook.Hooks { // a stable order
		for gi, g := range hf.Hooks[ev] {
			for hi, h := range g.Hooks {
				if !owns(h.Command, nil) {
					continue
				}
				ht := HandlerTrust{Event: ev}
				for _, n := range names {
					k := n + ":" + snake(ev) + ":" + strconv.Itoa(gi) + ":" + strconv.Itoa(hi)
					if ht.Key == "" {
						ht.Key = k
					}
					if state[k] {
						ht.Key, ht.Trusted = k, true
					}
				}
				out = append(out, ht)
			}
		}
	}
	return out, nil
}

// trustState reads [hooks.state] from config.toml: key → trusted.
func trustState(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
				Enabled     *bool  `toml:"enabled"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if err := toml.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]bool{}
	for k, v := range cfg.Hooks.State {
		out[k] = v.TrustedHash != "" && (v.Enabled == nil || *v.Enabled)
	}
	return out, nil
}

// snake turns a hook event name into the form Codex's trust keys use:
// PreToolUse → pre_tool_use.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
