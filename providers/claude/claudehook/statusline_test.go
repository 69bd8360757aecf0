package claudehook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// statusFull is a statusLine payload in the shape Claude Code 2.1.19x
// sends (code.claude.com/docs/en/statusline, research field.md §1.1),
// written for this test: a 1M-window Opus session on a Max plan.
const statusFull = `{
  "hook_event_name": "Status",
  "session_id": "7c1f0e2a-33b4-4d5e-8f60-718293a4b5c6",
  "session_name": "fix the flaky test",
  "prompt_id": "0b9e8d7c-6a5b-4c3d-9e2f-1a0b9c8d7e6f",
  "transcript_path": "/home/dev/.claude/projects/-home-dev-src-app/7c1f0e2a-33b4-4d5e-8f60-718293a4b5c6.jsonl",
  "cwd": "/home/dev/src/app",
  "model": {"id": "claude-opus-4-6[1m]", "display_name": "Opus 4.6 (1M context)"},
  "workspace": {"current_dir": "/home/dev/src/app/internal", "project_dir": "/home/dev/src/app", "added_dirs": [], "git_worktree": false},
  "version": "2.1.197",
  "output_style": {"name": "default"},
  "cost": {"total_cost_usd": 3.0412, "total_duration_ms": 912000, "total_api_duration_ms": 301000, "total_lines_added": 210, "total_lines_removed": 37},
  "context_window": {
    "total_input_tokens": 61234, "total_output_tokens": 8812, "context_window_size": 1000000,
    "current_usage": {"input_tokens": 12, "output_tokens": 640, "cache_creation_input_tokens": 2100, "cache_read_input_tokens": 118000},
    "used_percentage": 12, "remaining_percentage": 88
  },
  "exceeds_200k_tokens": false,
  "fast_mode": false, "effort": {"level": "high"}, "thinking": {"enabled": true},
  "rate_limits": {
    "five_hour": {"used_percentage": 41.5, "resets_at": 1796032800},
    "seven_day": {"used_percentage": 7, "resets_at": 1796515200}
  },
  "vim": {"mode": "INSERT"}
}`

func ptrInt(v int) *int { return &v }

func TestParseStatus(t *testing.T) {
	reset5 := time.Unix(1796032800, 0).UTC()
	for _, tc := range []struct {
		name    string
		payload string
		check   func(t *testing.T, s Status)
	}{
		{"full", statusFull, func(t *testing.T, s Status) {
			if s.Session != "7c1f0e2a-33b4-4d5e-8f60-718293a4b5c6" || s.Prompt != "0b9e8d7c-6a5b-4c3d-9e2f-1a0b9c8d7e6f" ||
				s.Cwd != "/home/dev/src/app/internal" || s.ProjectDir != "/home/dev/src/app" || s.Version != "2.1.197" ||
				!strings.HasSuffix(s.Transcript, "/7c1f0e2a-33b4-4d5e-8f60-718293a4b5c6.jsonl") {
				t.Errorf("ids and paths: %+v", s)
			}
			if s.ModelID != "claude-opus-4-6[1m]" || s.ModelName != "Opus 4.6 (1M context)" {
				t.Errorf("model %q %q", s.ModelID, s.ModelName)
			}
			if s.CostUSD == nil || *s.CostUSD != 3.0412 {
				t.Errorf("cost %v", s.CostUSD)
			}
			// used = input + cache writes + cache reads (output is not in the context yet)
			want := event.Context{Used: 120112, Size: 1000000, LeftPct: ptrInt(88)}
			if c := s.Context; c == nil || c.Used != want.Used || c.Size != want.Size || *c.LeftPct != 88 {
				t.Errorf("context %+v, want %+v", c, want)
			}
			if len(s.Limits) != 2 || s.Limits[0].Window != "5h" || s.Limits[0].UsedPct != 41.5 || s.Limits[0].Minutes != 300 ||
				!s.Limits[0].ResetsAt.Equal(reset5) || s.Limits[1].Window != "7d" || s.Limits[1].UsedPct != 7 || s.Limits[1].Minutes != 10080 {
				t.Errorf("limits %+v", s.Limits)
			}
		}},
		{"session start: nulls, no usage, no limits", `{"session_id":"s1","transcript_path":"/t/s1.jsonl","cwd":"/w",
			"model":{"id":"claude-sonnet-4-6","display_name":"Sonnet 4.6"},"cost":{"total_cost_usd":0,"total_duration_ms":2472},
			"context_window":{"total_input_tokens":0,"total_output_tokens":0,"context_window_size":200000,"current_usage":null,
			"used_percentage":null,"remaining_percentage":null},"exceeds_200k_tokens":false}`, func(t *testing.T, s Status) {
			if s.Context != nil {
				t.Errorf("context %+v before the first call, want none (not a false zero)", s.Context)
			}
			if s.CostUSD == nil || *s.CostUSD != 0 {
				t.Errorf("cost %v, want 0", s.CostUSD)
			}
			if s.Limits != nil || s.Cwd != "/w" {
				t.Errorf("limits %v cwd %q", s.Limits, s.Cwd)
			}
		}},
		{"after /compact: percentage only", `{"session_id":"s1","model":{"id":"claude-opus-4-6"},
			"context_window":{"context_window_size":200000,"current_usage":null,"used_percentage":3.6}}`, func(t *testing.T, s Status) {
			if c := s.Context; c == nil || c.Used != 7200 || c.Size != 200000 || *c.LeftPct != 96 {
				t.Errorf("context %+v, want used 7200 of 200000, 96 left", c)
			}
		}},
		{"usage but no percentages: computed as Claude shows it", `{"session_id":"s1","model":{"id":"claude-opus-4-6"},
			"context_window":{"current_usage":{"input_tokens":5,"cache_read_input_tokens":149995}}}`, func(t *testing.T, s Status) {
			if c := s.Context; c == nil || c.Used != 150000 || c.Size != 200000 || *c.LeftPct != 25 {
				t.Errorf("context %+v, want used 150000 of 200000 (default window), 25 left", c)
			}
		}},
		{"one window only, resets_at in ms and as a string", `{"session_id":"s1","rate_limits":{
			"five_hour":{"used_percentage":"12","resets_at":1796032800000},"seven_day":null,"seven_day_opus":{"used_percentage":1}}}`, func(t *testing.T, s Status) {
			if len(s.Limits) != 1 || s.Limits[0].Window != "5h" || s.Limits[0].UsedPct != 12 || !s.Limits[0].ResetsAt.Equal(reset5) {
				t.Errorf("limits %+v", s.Limits)
			}
		}},
		{"garbage values cost only themselves", `{"session_id":"s1","model":"opus","cost":{"total_cost_usd":"lots"},
			"context_window":{"context_window_size":-5,"used_percentage":[1],"current_usage":{"input_tokens":"x","cache_read_input_tokens":9000}},
			"rate_limits":{"five_hour":{"used_percentage":250,"resets_at":"soon"},"seven_day":{"used_percentage":null,"resets_at":17}},
			"workspace":[],"cwd":42}`, func(t *testing.T, s Status) {
			if s.Session != "s1" || s.ModelID != "" || s.CostUSD != nil || s.Cwd != "" {
				t.Errorf("%+v", s)
			}
			if c := s.Context; c == nil || c.Used != 9000 || c.Size != 200000 {
				t.Errorf("context %+v", c)
			}
			if len(s.Limits) != 1 || s.Limits[0].UsedPct != 100 || s.Limits[0].ResetsAt != nil {
				t.Errorf("limits %+v (used clamped to 100, no reset time)", s.Limits)
			}
		}},
		{"a number past float64", `{"session_id":"s1","cost":{"total_cost_usd":1e400},"context_window":{"current_usage":{"input_tokens":1e999,"cache_read_input_tokens":50}}}`, func(t *testing.T, s Status) {
			if s.Session != "s1" || s.CostUSD != nil || s.Context == nil || s.Context.Used != 50 {
				t.Errorf("%+v %+v", s, s.Context)
			}
		}},
		{"empty object", `{}`, func(t *testing.T, s Status) {
			if s.Session != "" || s.Context != nil || s.CostUSD != nil || s.Limits != nil {
				t.Errorf("%+v", s)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseStatus([]byte(tc.payload))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, s)
		})
	}
}

func TestParseStatusNotJSON(t *testing.T) {
	for _, p := range []string{"", "garbage", "[1,2]", `"s"`, `{"session_id":`, "\x00\xff"} {
		if s, err := ParseStatus([]byte(p)); err == nil && s.Session != "" {
			t.Errorf("%q: %+v", p, s)
		}
	}
}

func TestStatusMeter(t *testing.T) {
	s, err := ParseStatus([]byte(statusFull))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 4, 30, 0, 0, time.UTC)
	hc := provider.HookContext{Now: now, PID: 4242, TTY: "/dev/pts/3", Pane: "%7", Cwd: "/elsewhere", Host: "box"}
	e := s.Meter(hc)
	if e == nil {
		t.Fatal("no meter")
	}
	got := string(event.Marshal(e))
	want := `{"v":1,"t":"2026-11-30T04:30:00.000Z","kind":"meter","agent":"claude","session":"7c1f0e2a-33b4-4d5e-8f60-718293a4b5c6","src":"statusline","id":"` + e.ID + `","run":"0b9e8d7c-6a5b-4c3d-9e2f-1a0b9c8d7e6f","pid":4242,"tty":"/dev/pts/3","pane":"%7","host":"box","cwd":"/home/dev/src/app/internal","transcript":"/home/dev/.claude/projects/-home-dev-src-app/7c1f0e2a-33b4-4d5e-8f60-718293a4b5c6.jsonl","text":"Opus 4.6 (1M context)","model":"claude-opus-4-6","context":{"used":120112,"size":1000000,"left_pct":88},"cost_usd":3.0412,"limits":[{"window":"5h","used_pct":41.5,"minutes":300,"resets_at":"2026-11-30T10:00:00.000Z"},{"window":"7d","used_pct":7,"minutes":10080,"resets_at":"2026-12-06T00:00:00.000Z"}]}`
	if strings.TrimSpace(got) != want {
		t.Errorf("meter:\n got %s\nwant %s", got, want)
	}
	var back event.Event
	if err := event.Decode([]byte(got), &back); err != nil || back.Validate() != nil {
		t.Fatalf("meter does not decode: %v", err)
	}
	// Same moment, same reading: same id. Later, or different: another.
	e2 := s.Meter(hc)
	hc.Now = now.Add(time.Second)
	e3 := s.Meter(hc)
	if e2.ID != e.ID || e3.ID == e.ID {
		t.Errorf("ids %s %s %s", e.ID, e2.ID, e3.ID)
	}
	if (&Status{}).Meter(hc) != nil {
		t.Error("a payload without session_id made a meter")
	}
	// In a background session (the status line runs there too): no pane,
	// the job, Claude's pid.
	bg := map[string]string{EnvJobDir: "/home/dev/.claude/jobs/7c1f0e2a", EnvPID: "9876"}
	hc.Getenv = func(k string) string { return bg[k] }
	if b := s.Meter(hc); b.Pane != "" || b.Where != event.WhereBackground || b.Job != "7c1f0e2a" || b.PID != 9876 {
		t.Errorf("background meter: pane %q where %q job %q pid %d", b.Pane, b.Where, b.Job, b.PID)
	}
}

func TestAPIModel(t *testing.T) {
	for in, want := range map[string]string{
		"claude-opus-4-6[1m]": "claude-opus-4-6", "claude-sonnet-4-6": "claude-sonnet-4-6",
		"": "", "[1m]": "[1m]", "odd[": "odd[",
	} {
		if got := APIModel(in); got != want {
			t.Errorf("APIModel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParseStatusCorpus reads the real payloads in ../shared/corpus (never
// copied here), when present.
func TestParseStatusCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "shared", "corpus", "claude", "statusline", "*.json"))
	if len(files) == 0 {
		t.Skip("no ../shared/corpus/claude/statusline")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseStatus(b)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if s.Session == "" || s.ModelID == "" || s.CostUSD == nil {
			t.Errorf("%s: %+v", f, s)
		}
		if strings.Contains(string(b), `"rate_limits"`) && len(s.Limits) != 2 {
			t.Errorf("%s: limits %+v", f, s.Limits)
		}
		if strings.Contains(string(b), `"used_percentage": null`) != (s.Context == nil) {
			t.Errorf("%s: context %+v", f, s.Context)
		}
	}
}

func FuzzParseStatus(f *testing.F) {
	f.Add([]byte(statusFull))
	f.Add([]byte(`{"session_id":"s","context_window":{"used_percentage":1e308,"context_window_size":1e300},"rate_limits":{"five_hour":{"resets_at":-1}}}`))
	f.Add([]byte(`{"session_id":"s","cost":{"total_cost_usd":-1},"context_window":{"current_usage":{"input_tokens":1e20}}}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"session_id":"q","context_window":{"context_window_size":0,"used_percentage":0,"current_usage":21373}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		// Qwen Code's payloads are read by the same parser: every input
		// both ways.
		q, qerr := ParseStatusOf("qwen", b)
		if qerr == nil && q.Context != nil && (q.Context.Size <= 0 || q.Context.LeftPct == nil) {
			t.Fatalf("qwen context %+v", q.Context)
		}
		s, err := ParseStatus(b)
		if (err == nil) != (qerr == nil) {
			t.Fatalf("claude %v, qwen %v", err, qerr)
		}
		if err != nil {
			return
		}
		if c := s.Context; c != nil {
			if c.Used < 0 || c.Size <= 0 || c.LeftPct == nil || *c.LeftPct < 0 || *c.LeftPct > 100 {
				t.Fatalf("context %+v", c)
			}
		}
		if s.CostUSD != nil && *s.CostUSD < 0 {
			t.Fatalf("cost %v", *s.CostUSD)
		}
		for _, l := range s.Limits {
			if l.UsedPct < 0 || l.UsedPct > 100 {
				t.Fatalf("limit %+v", l)
			}
		}
		e := s.Meter(provider.HookContext{Now: time.Unix(1796032800, 0)})
		if e == nil {
			return
		}
		line := event.AppendJSON(nil, e)
		var back event.Event
		if err := event.Decode(line[:len(line)-1], &back); err != nil {
			t.Fatalf("meter %s does not decode: %v", line, err)
		}
	})
}
