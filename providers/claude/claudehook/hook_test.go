package claudehook

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
	"github.com/rogpeppe/go-internal/txtar"
)

// The -update flag may be declared by another test file of this package
// (other golden files); declare it only if nobody did, and read it by name.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

const hooksFile = "testdata/hooks.txtar"

var hookNow = time.Date(2026, 11, 30, 2, 14, 33, 751_000_000, time.UTC)

func hookCtx() provider.HookContext {
	return provider.HookContext{Now: hookNow, PID: 12494, TTY: "/dev/pts/0", Pane: "%3", Cwd: "/home/u", Host: "devbox"}
}

// payloads are the NAME.json sections of the golden file.
func payloads(t testing.TB) (*txtar.Archive, map[string][]byte) {
	a, err := txtar.ParseFile(hooksFile)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, f := range a.Files {
		if name, ok := strings.CutSuffix(f.Name, ".json"); ok {
			m[name] = bytes.TrimSpace(f.Data)
		}
	}
	return a, m
}

// TestHookMappings says what each payload must mean; the golden file
// holds every field, this table the ones that matter.
func TestHookMappings(t *testing.T) {
	_, in := payloads(t)
	const sess = "5f24c1d2-8a1b-4c3e-9f00-1a2b3c4d5e6f"
	const run = "3630a1b2-0c4d-4e5f-8a9b-0c1d2e3f4a5b"
	tests := []struct {
		name string
		want []event.Event // only the kind's own fields; common ones are checked below
	}{
		{"session-start", []event.Event{{Kind: event.SessionStart, Model: "claude-opus-4-8", Text: "startup"}}},
		{"session-start-resume", []event.Event{{Kind: event.SessionStart, Text: "resume"}}},
		{"user-prompt-submit", []event.Event{{Kind: event.TurnStart, Run: run, Text: "say hello"}}},
		{"user-prompt-submit-no-prompt-id", []event.Event{{Kind: event.TurnStart, Text: "fix the failing test in\nparser_test.go"}}},
		{"pre-tool-use-bash", []event.Event{{Kind: event.ToolStart, Run: run, Tool: "Bash", ToolID: "toolu_01c7ca0000000000000000aa", Text: "echo marker > marker.txt"}}},
		{"pre-tool-use-edit", []event.Event{{Kind: event.ToolStart, Run: run, Tool: "Edit", ToolID: "toolu_01edit000000000000000000", Text: "/home/u/src/app/main.go"}}},
		{"pre-tool-use-mcp", []event.Event{{Kind: event.ToolStart, Run: run, Tool: "mcp__tracker__create_issue", ToolID: "toolu_01mcp0000000000000000000", Text: `{"title":"Flaky test","labels":["ci"]}`}}},
		{"pre-tool-use-subagent", []event.Event{{Kind: event.ToolStart, Run: run, Tool: "Grep", ToolID: "toolu_01grep000000000000000000", Text: "func main", Sub: "a737ebb858df3fedd"}}},
		{"permission-request-bash", []event.Event{{Kind: event.Wait, Run: run, Attention: event.AttnPermission, Tool: "Bash", Text: "rm -rf build/"}}},
		// Two questions make a form of tabs: no one row per option.
		{"permission-request-question", []event.Event{{Kind: event.Wait, Run: run, Attention: event.AttnQuestion, Tool: "AskUserQuestion", Text: "Which database should the service use?\nAdd a migration now?"}}},
		// One question: its options' labels, blank ones left out.
		{"pre-tool-use-question", []event.Event{{Kind: event.ToolStart, Run: run, Tool: "AskUserQuestion", ToolID: "toolu_01ask0000000000000000000", Text: "Which colour should the button be?", Options: []string{"Red", `Green, "leaf"`}}}},
		{"permission-request-plan", []event.Event{{Kind: event.Wait, Run: run, Attention: event.AttnPlan, Tool: "ExitPlanMode",
			Text: "# Plan: cache the parser\n\n1. Add an LRU in parser/cache.go\n2. Wire it into Parse\n3. Benchmark before and after\n4. Document the knob\n5. a\n6. b\n7. c\n8. d\n9. e\n10. f"}}},
		{"post-tool-use", []event.Event{{Kind: event.ToolEnd, Run: run, Tool: "Bash", ToolID: "toolu_01c7ca0000000000000000aa"}}},
		{"post-tool-use-failure", []event.Event{{Kind: event.ToolEnd, Run: run, Tool: "Bash", ToolID: "toolu_01fail000000000000000000", Reason: "Exit code 2 …"}}},
		{"post-tool-use-failure-interrupt", []event.Event{
			{Kind: event.ToolEnd, Run: run, Tool: "Bash", ToolID: "toolu_01intr000000000000000000", Reason: "Interrupted by user"},
			{Kind: event.Interrupt, Run: run, Reason: "user"},
		}},
		{"notification-permission", []event.Event{{Kind: event.Wait, Attention: event.AttnPermission, Text: "Claude needs your permission"}}},
		{"notification-elicitation", []event.Event{{Kind: event.Wait, Attention: event.AttnQuestion, Text: "MCP server tracker needs input"}}},
		{"notification-agent-needs-input", []event.Event{{Kind: event.Wait, Attention: event.AttnQuestion, Text: "Claude needs your input"}}},
		// Auto mode's hold before an action it cannot check: a permission wait.
		{"notification-auto-hold", []event.Event{{Kind: event.Wait, Run: run, Attention: event.AttnPermission, Reason: event.ReasonUnchecked,
			Text: "Auto mode can't check actions in this session and needs your choice"}}},
		// Auto mode refused the call: it ends, blocked, and the turn goes on.
		{"permission-denied-auto", []event.Event{{Kind: event.ToolEnd, Run: run, Tool: "Bash", ToolID: "toolu_01deny000000000000000000",
			Reason: event.ReasonBlocked, Text: "Deletes data outside the project."}}},
		{"pre-tool-use-auto", []event.Event{{Kind: event.ToolStart, Run: run, Tool: "Bash", ToolID: "toolu_01auto000000000000000000", Text: "go test ./..."}}},
		{"notification-idle", nil},
		{"notification-auth", nil},
		{"notification-old-permission", []event.Event{{Kind: event.Wait, Attention: event.AttnPermission, Tool: "Write", Text: "Claude needs your permission to use Write"}}},
		{"stop", []event.Event{{Kind: event.TurnEnd, Run: run, Text: "FAKE-REPLY: hello from the fake model"}}},
		// running subagent + pending workflow + a subagent with no status
		// count; the shell, the monitor and the completed one do not.
		{"stop-background", []event.Event{{Kind: event.TurnEnd, Run: run, Pending: 3, Text: "Started two reviewers."}}},
		{"stop-failure", []event.Event{{Kind: event.TurnFail, Run: run, Reason: "rate_limit", Text: "429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit"}}},
		{"subagent-start", []event.Event{{Kind: event.ToolStart, Run: run, Tool: "general-purpose", Sub: "a737ebb858df3fedd"}}},
		{"subagent-stop", []event.Event{{Kind: event.ToolEnd, Run: run, Tool: "general-purpose", Sub: "a737ebb858df3fedd"}}},
		{"pre-compact", []event.Event{{Kind: event.ToolStart, Tool: "compact", Text: "auto"}}},
		{"post-compact", []event.Event{{Kind: event.ToolEnd, Tool: "compact", Text: "auto"}}},
		{"session-end", []event.Event{{Kind: event.SessionEnd, Reason: "prompt_input_exit"}}},
		{"unmapped-cwd-changed", nil},
		{"odd-types", []event.Event{{Kind: event.ToolEnd, Tool: "Bash", ToolID: "7", Reason: `{"code":"EPIPE"}`}}},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seen[tc.name] = true
			raw, ok := in[tc.name]
			if !ok {
				t.Fatalf("no %s.json in %s", tc.name, hooksFile)
			}
			got, err := Mapper{}.MapHook(raw, hookCtx())
			if err != nil {
				t.Fatalf("MapHook: %v", err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d events, want %d:\n%s", len(got), len(tc.want), ndjson(got))
			}
			for i, e := range got {
				w := tc.want[i]
				type own struct{ Kind, Run, Tool, ToolID, Attention, Text, Reason, Sub, Model string }
				g := own{e.Kind, e.Run, e.Tool, e.ToolID, e.Attention, e.Text, e.Reason, e.Sub, e.Model}
				wo := own{w.Kind, w.Run, w.Tool, w.ToolID, w.Attention, w.Text, w.Reason, w.Sub, w.Model}
				if g != wo || e.Pending != w.Pending || !slices.Equal(e.Options, w.Options) {
					t.Errorf("event %d:\n got %+v pending=%d options=%q\nwant %+v pending=%d options=%q", i, g, e.Pending, e.Options, wo, w.Pending, w.Options)
				}
				if e.V != 1 || e.Agent != ID || e.Session != sess || e.Src != event.SrcHook || !e.T.Equal(hookNow) {
					t.Errorf("event %d envelope: %s", i, event.Marshal(&e))
				}
				if e.PID != 12494 || e.TTY != "/dev/pts/0" || e.Pane != "%3" || e.Host != "devbox" {
					t.Errorf("event %d process context: %s", i, event.Marshal(&e))
				}
				if err := e.Validate(); err != nil {
					t.Errorf("event %d: %v", i, err)
				}
			}
		})
	}
	for name := range in {
		if !seen[name] {
			t.Errorf("%s.json has no row in the table", name)
		}
	}
}

func ndjson(evs []event.Event) []byte {
	var b []byte
	for i := range evs {
		b = event.AppendJSON(b, &evs[i])
	}
	return b
}

// TestHookGolden compares every field of every payload's events.
func TestHookGolden(t *testing.T) {
	a, in := payloads(t)
	want := map[string][]byte{}
	for _, f := range a.Files {
		if name, ok := strings.CutSuffix(f.Name, ".ndjson"); ok {
			want[name] = f.Data
		}
	}
	var files []txtar.File
	for _, f := range a.Files {
		name, ok := strings.CutSuffix(f.Name, ".json")
		if !ok {
			continue
		}
		got, err := Mapper{}.MapHook(in[name], hookCtx())
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		out := ndjson(got)
		files = append(files, f, txtar.File{Name: name + ".ndjson", Data: out})
		if !updating() && !bytes.Equal(out, want[name]) {
			t.Errorf("%s: got\n%s\nwant\n%s(go test -update rewrites %s)", name, out, want[name], hooksFile)
		}
	}
	if updating() {
		a.Files = files
		if err := os.WriteFile(hooksFile, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHookIDs: the same payload delivered twice in the same second (two
// installs) gives the same id; a second later, or a different payload,
// a new one; and two events from one payload differ.
func TestHookIDs(t *testing.T) {
	_, in := payloads(t)
	p := Mapper{}
	id := func(name string, at time.Time) []string {
		hc := hookCtx()
		hc.Now = at
		evs, err := p.MapHook(in[name], hc)
		if err != nil || len(evs) == 0 {
			t.Fatalf("%s: %v %v", name, evs, err)
		}
		var ids []string
		for _, e := range evs {
			ids = append(ids, e.ID)
		}
		return ids
	}
	a := id("permission-request-bash", hookNow)
	if b := id("permission-request-bash", hookNow.Add(200*time.Millisecond)); a[0] != b[0] {
		t.Errorf("same payload, same second: ids %s and %s differ", a[0], b[0])
	}
	if b := id("permission-request-bash", hookNow.Add(2*time.Second)); a[0] == b[0] {
		t.Errorf("same payload two seconds apart: same id %s", a[0])
	}
	if b := id("notification-permission", hookNow); a[0] == b[0] {
		t.Errorf("different payloads: same id %s", a[0])
	}
	if two := id("post-tool-use-failure-interrupt", hookNow); two[0] == two[1] {
		t.Errorf("two events of one payload share id %s", two[0])
	}
}

func TestHookBadPayloads(t *testing.T) {
	for _, in := range []string{
		"", "garbage", "[]", "null", `"x"`, `{"hook_event_name":"Stop"}`,
		`{"session_id":"s"}`, `{"session_id":"s","hook_event_name":"Stop"`,
	} {
		evs, err := Mapper{}.MapHook([]byte(in), hookCtx())
		if err == nil || len(evs) != 0 {
			t.Errorf("MapHook(%q) = %v, %v; want no events and an error", in, evs, err)
		}
	}
}

func TestHookCwdFallback(t *testing.T) {
	evs, err := Mapper{}.MapHook([]byte(`{"session_id":"s","hook_event_name":"SessionEnd","reason":"clear"}`), hookCtx())
	if err != nil || len(evs) != 1 || evs[0].Cwd != "/home/u" {
		t.Fatalf("got %v, %v; want cwd from the hook's context", evs, err)
	}
}

func TestHookClamp(t *testing.T) {
	long := strings.Repeat("é", 3000) // 6000 bytes
	raw := []byte(`{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"` + long + `"}`)
	evs, err := Mapper{}.MapHook(raw, hookCtx())
	if err != nil || len(evs) != 1 {
		t.Fatal(evs, err)
	}
	if n := len(evs[0].Text); n > maxText || !strings.HasSuffix(evs[0].Text, "…") || !strings.HasPrefix(evs[0].Text, "éé") {
		t.Errorf("clamped text: %d bytes, %q…", n, evs[0].Text[:10])
	}
	if !bytes.Equal(bytes.ToValidUTF8([]byte(evs[0].Text), nil), []byte(evs[0].Text)) {
		t.Error("clamp cut a rune in half")
	}
}

// TestHookCorpus maps the real payloads in ../shared/corpus when present.
// They are keys-only captures (values blanked) or from older versions, so
// this checks that nothing real makes MapHook fail or emit a bad event.
func TestHookCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "corpus", "claude", "hooks")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json*"))
	if len(files) == 0 {
		t.Skip("no corpus at", dir)
	}
	kinds := map[string]int{}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var docs [][]byte
		if strings.HasSuffix(path, ".jsonl") {
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				docs = append(docs, bytes.Clone(sc.Bytes()))
			}
		} else {
			docs = append(docs, data)
		}
		for i, d := range docs {
			evs, err := Mapper{}.MapHook(d, hookCtx())
			if err != nil {
				t.Errorf("%s:%d: %v", filepath.Base(path), i+1, err)
			}
			for _, e := range evs {
				kinds[e.Kind]++
				var back event.Event
				if err := event.Decode(bytes.TrimSpace(event.Marshal(&e)), &back); err != nil || back.Validate() != nil {
					t.Errorf("%s:%d: event does not round-trip: %v", filepath.Base(path), i+1, err)
				}
			}
		}
	}
	// The keys-only capture has SessionStart, PreToolUse, PermissionRequest,
	// PostToolUse, an idle Notification (no event) and SessionEnd; the
	// issue's payload is a typeless permission Notification.
	for _, k := range []string{event.SessionStart, event.ToolStart, event.Wait, event.ToolEnd, event.SessionEnd} {
		if kinds[k] == 0 {
			t.Errorf("no %s from the corpus (got %v)", k, kinds)
		}
	}
}

func FuzzMapHook(f *testing.F) {
	_, in := payloads(f)
	for _, p := range in {
		f.Add(p)
	}
	f.Add([]byte(`{"session_id":"s","hook_event_name":"Stop","background_tasks":[1,null,{"type":7}]}`))
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"AskUserQuestion","tool_input":{"questions":"x"}}`))
	p := Mapper{}
	f.Fuzz(func(t *testing.T, raw []byte) {
		evs, err := p.MapHook(raw, hookCtx())
		if err != nil {
			if len(evs) != 0 {
				t.Fatalf("error %v with %d events", err, len(evs))
			}
			return
		}
		for _, e := range evs {
			if e.Session == "" || e.Kind == "" || e.ID == "" {
				t.Fatalf("incomplete event %s", event.Marshal(&e))
			}
			line := event.Marshal(&e)
			var back event.Event
			if err := event.Decode(bytes.TrimSuffix(line, []byte("\n")), &back); err != nil {
				t.Fatalf("event does not decode: %v\n%s", err, line)
			}
			if again := event.Marshal(&back); !bytes.Equal(again, line) {
				t.Fatalf("event does not round-trip:\n%s\n%s", line, again)
			}
			if len(e.Text) > maxText {
				t.Fatalf("text of %d bytes", len(e.Text))
			}
		}
	})
}

func BenchmarkMapHook(b *testing.B) {
	_, in := payloads(b)
	raw := in["pre-tool-use-bash"]
	p := Mapper{}
	hc := hookCtx()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.MapHook(raw, hc); err != nil {
			b.Fatal(err)
		}
	}
}
