package paths

import "testing"

// TestRelativeIgnored: a relative AG_DIR or XDG_* is ignored (the XDG spec
// says so), so a hook never makes folders in the agent's working directory.
func TestRelativeIgnored(t *testing.T) {
	for _, tc := range []struct {
		env          map[string]string
		spool, state string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.local/state/ag/spool.ndjson", "/h/.local/state/ag/state.json"},
		{map[string]string{"HOME": "/h", "AG_DIR": "/ag/"}, "/ag/spool.ndjson", "/ag/state.json"},
		{map[string]string{"HOME": "/h", "XDG_STATE_HOME": "/s", "XDG_RUNTIME_DIR": "/run/u"}, "/s/ag/spool.ndjson", "/run/u/ag/state.json"},
		{map[string]string{"HOME": "/h", "AG_DIR": "ag", "XDG_STATE_HOME": "./s", "XDG_RUNTIME_DIR": "run"},
			"/h/.local/state/ag/spool.ndjson", "/h/.local/state/ag/state.json"},
	} {
		env := func(k string) string { return tc.env[k] }
		if got := Spool(env); got != tc.spool {
			t.Errorf("%v: Spool = %s, want %s", tc.env, got, tc.spool)
		}
		if got := StateFile(env); got != tc.state {
			t.Errorf("%v: StateFile = %s, want %s", tc.env, got, tc.state)
		}
	}
}
