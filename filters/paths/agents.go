package paths

import "path/filepath"

// AgentsDir holds the user's agent definitions, one ID.toml each:
// $XDG_CONFIG_HOME/ag/agents, else ~/.config/ag/agents.
func AgentsDir(env Env) string {
	if d := Dir(env, "XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "ag", "agents")
	}
	return filepath.Join(Home(env), ".config", "ag", "agents")
}
