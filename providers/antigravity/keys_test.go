package antigravity

import (
	"testing"

	"github.com/agwatch/ag/providers/provider"
)

func TestKeysAndCommands(t *testing.T) {
	k := New().Keys()
	if k.Approve[0] != "1" || k.Deny[0] != "Escape" || len(k.Deny) != 1 || k.UnsafeReply(" /help") == "" || k.UnsafeReply("!ls") == "" || k.UnsafeReply("ok") != "" {
		t.Errorf("keys %+v", k)
	}
	c := New().Commands()
	if got, err := c.ResumeCommand("b339e9c1-61e9-4aab-94c8-7322c29b77d3", provider.Launch{}); err != nil || got != "command agy --conversation='b339e9c1-61e9-4aab-94c8-7322c29b77d3'" {
		t.Errorf("resume %q %v", got, err)
	}
	if got, err := c.SpawnCommand("fix it", provider.Launch{Model: "gemini-3.6-pro"}); err != nil || got != "command agy --model gemini-3.6-pro -i 'fix it'" {
		t.Errorf("spawn %q %v", got, err)
	}
}

func TestProcRules(t *testing.T) {
	r := New().ProcRules()
	for _, tc := range []struct {
		exe  string
		argv []string
		ok   bool
	}{
		{"/home/u/.local/bin/agy", []string{"agy"}, true},
		{"/usr/local/bin/agy", []string{"/usr/local/bin/agy", "-i", "hi"}, true},
		{"/Applications/Antigravity.app/Contents/Resources/app/bin/antigravity", []string{"agy", "."}, false},
		{"/usr/share/antigravity/antigravity", []string{"/usr/bin/agy"}, false},
		{"/usr/bin/vim", []string{"vim", "agy"}, false},
	} {
		if got := r.Match(tc.exe, tc.argv); got.OK != tc.ok {
			t.Errorf("%s %q: %+v", tc.exe, tc.argv, got)
		}
	}
}
