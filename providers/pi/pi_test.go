package pi

import (
	"testing"

	"github.com/agwatch/ag/providers/provider"
)

// TestKeys: Pi never waits for permission, so nothing approves or denies;
// a reply whose first non-blank is "!" would run as a shell command.
func TestKeys(t *testing.T) {
	km := New().Keys()
	if len(km.Approve) != 0 || len(km.Deny) != 0 || km.FinishedPrelude == nil {
		t.Errorf("key map %+v", km)
	}
	for text, bad := range map[string]bool{"  !ls": true, "!": true, "/model": false, "say !": false} {
		if got := km.UnsafeReply(text) != ""; got != bad {
			t.Errorf("%q unsafe %v", text, got)
		}
	}
	if l, err := New().Commands().ResumeCommand("01a22a42", provider.Launch{}); err != nil || l != "command pi --session '01a22a42'" {
		t.Errorf("resume %q %v", l, err)
	}
	env := func(k string) string { return map[string]string{"HOME": "/h", "PI_CODING_AGENT_DIR": ""}[k] }
	if p := New().ConfigPath(env); p != "/h/.pi/agent/extensions/ag.js" {
		t.Errorf("extension at %s", p)
	}
}
