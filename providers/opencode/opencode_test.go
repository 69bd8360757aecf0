package opencode

import (
	"testing"

	"github.com/agwatch/ag/providers/provider"
)

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		env        map[string]string
		plugin, db string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.config/opencode/plugins/ag.js", "/h/.local/share/opencode/opencode.db"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d"}, "/c/opencode/plugins/ag.js", "/d/opencode/opencode.db"},
		{map[string]string{"HOME": "/h", "OPENCODE_DB": "/db/x.db"}, "/h/.config/opencode/plugins/ag.js", "/db/x.db"},
		{map[string]string{"HOME": "/h", "XDG_DATA_HOME": "relative"}, "/h/.config/opencode/plugins/ag.js", "/h/.local/share/opencode/opencode.db"},
	} {
		env := func(k string) string { return tc.env[k] }
		p := New()
		if got := p.ConfigPath(env); got != tc.plugin {
			t.Errorf("%v: plugin %s", tc.env, got)
		}
		if got := p.StorePaths(env); len(got) != 1 || got[0] != tc.db {
			t.Errorf("%v: db %v", tc.env, got)
		}
	}
}

func TestKeysAndCommands(t *testing.T) {
	km := New().Keys()
	if km.UnsafeReply(" !ls") == "" || km.UnsafeReply("/help") != "" || km.DefuseLeading != " " {
		t.Error("replies")
	}
	c := New().Commands()
	if l, _ := c.ResumeCommand("ses_dcea1d1e", provider.Launch{}); l != "command opencode -s 'ses_dcea1d1e'" {
		t.Errorf("resume %q", l)
	}
	if l, _ := c.SpawnCommand("fix it", provider.Launch{Model: "fake/fake-model"}); l != "command opencode -m fake/fake-model --prompt 'fix it'" {
		t.Errorf("spawn %q", l)
	}
}
