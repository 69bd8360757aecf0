package droid

import (
	"testing"

	"github.com/agwatch/ag/providers/provider"
)

// TestCommands: the command lines from --help, each quoted.
func TestCommands(t *testing.T) {
	c := New().Commands()
	const id = "9f1c2d3e-0000-4000-8000-123456789abc"
	for _, tc := range []struct {
		name, want string
		got        func() (string, error)
	}{
		{"resume", "command droid --resume '" + id + "'", func() (string, error) { return c.ResumeCommand(id, provider.Launch{}) }},
		{"spawn", "command droid 'fix it'", func() (string, error) { return c.SpawnCommand("fix it", provider.Launch{}) }},
		{"fork", "command droid --fork '" + id + "'", func() (string, error) { return c.ForkCommand("/h/s/"+id+".jsonl", provider.Launch{}) }},
	} {
		got, err := tc.got()
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if got, err := c.ForkCommand("/h/s/-rf.jsonl", provider.Launch{}); err == nil {
		t.Errorf("fork of a session named like an option: %q", got)
	}
}
