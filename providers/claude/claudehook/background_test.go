package claudehook

import (
	"testing"

	"github.com/agwatch/ag/filters/event"
)

// TestHookBackground: a hook in a background session (CLAUDE_JOB_DIR set,
// as Claude Code 2.1.332 runs them) marks every event where: background
// with the job id and Claude's pid, and believes no $TMUX_PANE; the same
// payload in a pane is a pane's.
func TestHookBackground(t *testing.T) {
	_, in := payloads(t)
	tests := []struct {
		name      string
		env       map[string]string
		where     string
		job, pane string
		pid       int
	}{
		{"pane", nil, "", "", "%3", 12494},
		{"background", map[string]string{EnvJobDir: "/home/u/.claude/jobs/5db6b5b0", EnvPID: "10290"},
			event.WhereBackground, "5db6b5b0", "", 10290},
		{"background, trailing slash, no pid", map[string]string{EnvJobDir: "/home/u/.claude/jobs/5db6b5b0/"},
			event.WhereBackground, "5db6b5b0", "", 12494},
		{"background, a pid that is none", map[string]string{EnvJobDir: "/c/jobs/f983d20d", EnvPID: "-1"},
			event.WhereBackground, "f983d20d", "", 12494},
		{"a job dir that names no job", map[string]string{EnvJobDir: "/"}, "", "", "%3", 12494},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hc := hookCtx()
			hc.Getenv = func(k string) string { return tc.env[k] }
			for _, name := range []string{"user-prompt-submit", "permission-request-bash", "stop", "session-end"} {
				got, err := Mapper{}.MapHook(in[name], hc)
				if err != nil || len(got) != 1 {
					t.Fatalf("%s: %d events, %v", name, len(got), err)
				}
				e := got[0]
				if e.Where != tc.where || e.Job != tc.job || e.Pane != tc.pane || e.PID != tc.pid {
					t.Errorf("%s: where %q job %q pane %q pid %d; want %q %q %q %d", name,
						e.Where, e.Job, e.Pane, e.PID, tc.where, tc.job, tc.pane, tc.pid)
				}
			}
		})
	}
}

// TestHookMode: the mode each hook of a turn reports is on its events, by
// ag's names; one ag does not know is kept, lower-cased.
func TestHookMode(t *testing.T) {
	_, in := payloads(t)
	in["odd-mode"] = []byte(`{"session_id":"s","hook_event_name":"UserPromptSubmit","permission_mode":"SomethingNew"}`)
	for name, want := range map[string]string{
		"user-prompt-submit": event.ModeManual, "pre-tool-use-auto": event.ModeAuto,
		"permission-denied-auto": event.ModeAuto, "permission-request-plan": event.ModePlan, "session-end": "",
		"odd-mode": "somethingnew",
	} {
		got, err := Mapper{}.MapHook(in[name], hookCtx())
		if err != nil || len(got) == 0 {
			t.Fatalf("%s: %v", name, err)
		}
		if got[0].Mode != want {
			t.Errorf("%s: mode %q, want %q", name, got[0].Mode, want)
		}
	}
}
