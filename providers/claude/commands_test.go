package claude

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/providers/provider"
)

func TestCommands(t *testing.T) {
	c := New().Commands()
	tests := []struct {
		name string
		got  func() (string, error)
		want string // "" means an error containing bad
		bad  string
	}{
		{"resume", func() (string, error) {
			return c.ResumeCommand("9f1c2d3e-0000-4000-8000-123456789abc", provider.Launch{})
		},
			"command claude --resume '9f1c2d3e-0000-4000-8000-123456789abc'", ""},
		{"resume quotes a hostile id", func() (string, error) { return c.ResumeCommand("x'; touch P; '", provider.Launch{}) },
			`command claude --resume 'x'\''; touch P; '\'''`, ""},
		{"resume with a model appends it", func() (string, error) { return c.ResumeCommand("abc", provider.Launch{Model: "opus"}) },
			"command claude --resume 'abc' --model opus", ""},
		{"resume id with a newline", func() (string, error) { return c.ResumeCommand("abc\nrm -rf ~", provider.Launch{}) }, "", "control characters"},
		{"resume id with ESC", func() (string, error) { return c.ResumeCommand("abc\x1b", provider.Launch{}) }, "", "control characters"},
		{"resume id too long", func() (string, error) { return c.ResumeCommand(strings.Repeat("a", 129), provider.Launch{}) }, "", "longer than 128"},
		{"resume empty id", func() (string, error) { return c.ResumeCommand("", provider.Launch{}) }, "", "empty session id"},
		{"resume id that is an option", func() (string, error) { return c.ResumeCommand("--dangerously-skip-permissions", provider.Launch{}) }, "", "starts with -"},
		{"spawn", func() (string, error) { return c.SpawnCommand("fix the tests", provider.Launch{}) },
			"command claude 'fix the tests'", ""},
		{"spawn on a model: flag right after the launcher", func() (string, error) { return c.SpawnCommand("hi", provider.Launch{Model: "claude-opus-4-1"}) },
			"command claude --model claude-opus-4-1 'hi'", ""},
		{"spawn with another launcher", func() (string, error) { return c.SpawnCommand("hi", provider.Launch{Bin: "/opt/bin/claude"}) },
			"command /opt/bin/claude 'hi'", ""},
		{"spawn model with a space", func() (string, error) { return c.SpawnCommand("hi", provider.Launch{Model: "opus; id"}) }, "", "model"},
		{"spawn model that is an option", func() (string, error) { return c.SpawnCommand("hi", provider.Launch{Model: "-p"}) }, "", "starts with -"},
		{"spawn launcher with a space", func() (string, error) { return c.SpawnCommand("hi", provider.Launch{Bin: "claude -p"}) }, "", "launcher"},
		{"spawn prompt that is an option", func() (string, error) { return c.SpawnCommand("--dangerously-skip-permissions", provider.Launch{}) }, "", "starts with -"},
		{"spawn empty prompt", func() (string, error) { return c.SpawnCommand("", provider.Launch{}) }, "", "empty prompt"},
		{"fork", func() (string, error) {
			return c.ForkCommand("/home/u/.claude/projects/-w/abc.jsonl", provider.Launch{})
		},
			"command claude --resume '/home/u/.claude/projects/-w/abc.jsonl' --fork-session", ""},
		{"fork relative", func() (string, error) { return c.ForkCommand("abc.jsonl", provider.Launch{}) }, "", "absolute"},
		{"fork not jsonl", func() (string, error) { return c.ForkCommand("/etc/passwd", provider.Launch{}) }, "", ".jsonl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got()
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("= %q, %v; want error containing %q", got, err, tc.bad)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("= %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestSpawnRunsInRealShell runs the built spawn command in sh with a fake
// claude on PATH that writes its argv: hostile prompts must arrive as one
// argument, byte for byte, and nothing else may run.
func TestSpawnRunsInRealShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	bin := t.TempDir()
	fake := "#!/bin/sh\nfor a in \"$@\"; do printf '<%s>' \"$a\"; done\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	c := New().Commands()
	for _, p := range []string{"$(touch PWNED)", "`touch PWNED`", "'; touch PWNED; '", "$'\\'; touch PWNED; #'",
		"$`; touch PWNED; #", `\'; touch PWNED`, "a\nb; touch PWNED", "it's {prompt} {bin}"} {
		cmd, err := c.SpawnCommand(p, provider.Launch{Model: "opus"})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		x := exec.Command(sh, "-c", cmd)
		x.Dir, x.Env = dir, []string{"PATH=" + bin + ":" + os.Getenv("PATH")}
		var out bytes.Buffer
		x.Stdout, x.Stderr = &out, &out
		if err := x.Run(); err != nil {
			t.Fatalf("%s: %v: %s", cmd, err, out.String())
		}
		if want := "<--model><opus><" + p + ">"; out.String() != want {
			t.Errorf("sh -c %q ran claude with %q; want %q", cmd, out.String(), want)
		}
		if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
			t.Errorf("prompt %q escaped its quotes", p)
		}
	}
}

func TestKeysNeverPlanApproveWithOne(t *testing.T) {
	km := New().Keys()
	for _, k := range km.PlanApprove {
		if k == "1" {
			t.Fatal(`plan approve must not be "1" (auto mode)`)
		}
	}
	if km.FinishedPrelude == nil || len(km.FinishedPrelude) != 0 {
		t.Errorf("finished reply must be offered with no prelude, got %v", km.FinishedPrelude)
	}
}
