package anthropic

import (
	"encoding/json"
	"strings"
	"testing"
)

// withSafeguards is a request body asking for auto mode's safety check,
// as Claude Code 2.1.332 sends it (safeguards beside the messages).
func withSafeguards(body string) string {
	var m map[string]any
	json.Unmarshal([]byte(body), &m)
	m["safeguards"] = []any{map[string]any{"type": "dangerous_tool_use", "classifier_context": map[string]any{"v": 1, "permission_mode": "auto"}}}
	b, _ := json.Marshal(m)
	return string(b)
}

// verdictsOf reads the safeguard_results of a stream's message_delta.
func verdictsOf(t *testing.T, evs []sseEvent) (map[string]any, bool) {
	t.Helper()
	for _, e := range evs {
		if e.Name != "message_delta" {
			continue
		}
		raw, ok := e.Data["delta"].(map[string]any)["safeguard_results"]
		if !ok {
			return nil, false
		}
		res := raw.([]any)
		if len(res) != 1 {
			t.Fatalf("safeguard_results %v", res)
		}
		r := res[0].(map[string]any)
		st := r["status"].(map[string]any)
		if r["type"] != "dangerous_tool_use" || st["type"] != "available" {
			t.Fatalf("safeguard_results %v", res)
		}
		return st["tool_uses"].(map[string]any), true
	}
	return nil, false
}

// TestVerdicts: asked for the check, the fake judges each tool call of the
// reply in its message_delta — not_flagged, or flagged for a RISKY prompt —
// and a text reply has none to judge; not asked (or NoVerdicts), no results.
func TestVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name, prompt string
		ask, drop    bool
		want         string // the one verdict, "" for an empty map, "-" for no results
	}{
		{"a call passes", "RUN: echo ok", true, false, VerdictNotFlagged},
		{"a RISKY prompt's call is flagged", "RISKY RUN: rm -rf /", true, false, VerdictFlagged},
		{"a text reply: nothing to judge", "say hello", true, false, ""},
		{"not asked: no results", "RUN: echo ok", false, false, "-"},
		{"a gateway that drops them", "RISKY RUN: rm -rf /", true, true, "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Start(Options{NoVerdicts: tc.drop})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			body := request("claude-opus-5-5", true, 13, prompt(tc.prompt))
			if tc.ask {
				body = withSafeguards(body)
			}
			evs := readSSE(t, post(t, s.URL+"/v1/messages?beta=true", body).Body)
			uses, ok := verdictsOf(t, evs)
			switch {
			case tc.want == "-":
				if ok {
					t.Fatalf("results %v, want none", uses)
				}
				return
			case !ok:
				t.Fatal("no safeguard_results")
			case tc.want == "" && len(uses) != 0:
				t.Fatalf("verdicts %v for a text reply", uses)
			case tc.want == "":
				return
			}
			a := assemble(t, evs)
			if a.tool != "Bash" || len(uses) != 1 {
				t.Fatalf("reply %+v, verdicts %v", a, uses)
			}
			for id, v := range uses {
				v := v.(map[string]any)
				if !strings.HasPrefix(id, "toolu_") || v["type"] != "evaluated" || v["outcome"] != tc.want || v["explanation"] == "" {
					t.Errorf("verdict %s: %v, want evaluated %s", id, v, tc.want)
				}
			}
			if got := s.Requests()[0].Verdict; got != tc.want {
				t.Errorf("logged verdict %q", got)
			}
		})
	}
}

// TestDeferredPlan: Claude Code 2.1.332 names ExitPlanMode as a deferred
// tool; the fake loads it with ToolSearch select:ExitPlanMode, then, with
// the schema loaded ("Tool loaded." beside the result), calls it.
func TestDeferredPlan(t *testing.T) {
	tools := []string{"Bash", "Write", ToolSearch}
	deferredList := map[string]any{"role": "system", "content": "The following deferred tools are now available via ToolSearch. Use ToolSearch with query \"select:<name>[,<name>...]\" to load tool schemas before calling them: CronCreate EnterPlanMode ExitPlanMode WebFetch"}
	search := map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t2", "name": ToolSearch,
		"input": map[string]any{"query": "select:ExitPlanMode"}}}}
	loaded := user(`[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"tool_reference","tool_name":"ExitPlanMode"}]},{"type":"text","text":"Tool loaded."}]`)
	for _, tc := range []struct {
		name     string
		req      messagesRequest
		tool, in string
	}{
		{"deferred: loaded first", named(tools, user(prompt("PLAN-BARE: do x")), deferredList), ToolSearch, `{"query":"select:ExitPlanMode"}`},
		{"loaded: called", named(append(tools, ToolPlan), user(prompt("PLAN-BARE: do x")), deferredList, search, loaded), ToolPlan, `{"plan":"do x"}`},
		{"not deferred, not offered: text", named(tools, user(prompt("PLAN-BARE: do x"))), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := plan(&tc.req)
			if sc.Tool != tc.tool || sc.Input != tc.in {
				t.Errorf("got %+v, want %s %s", sc, tc.tool, tc.in)
			}
		})
	}
}
