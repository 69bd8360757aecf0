package auggie

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/auggie/auggiehook"
	"github.com/agwatch/ag/providers/internal/parsertest"
	"github.com/agwatch/ag/providers/provider"
)

const recorded = "testdata/sessions/3a26c4bf-bc1c-450d-bd53-66026f6b068f.json"

// rewrites are the recorded session's file after each of its exchanges,
// one a line: the file as Auggie 0.36.0 rewrote it through the session (a
// plain turn, a command approved, one denied, one that ran a while, a
// long one denied, a reply quoting the dialog, Escape at work, one in a
// narrow pane).
const rewrites = "testdata/sessions/rewrites.jsonl"

func parseAll(t *testing.T, p *Session, file string) []event.Event {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []event.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if err := p.ParseWhole(sc.Bytes(), func(e *event.Event) { out = append(out, *e) }); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// The file read after each rewrite gives what the last file read once
// gives: each exchange emitted once.
func TestRewritesEqualWhole(t *testing.T) {
	steps := parseAll(t, NewSession(recorded), rewrites)
	b, err := os.ReadFile(recorded)
	if err != nil {
		t.Fatal(err)
	}
	var whole []event.Event
	if err := NewSession(recorded).ParseWhole(b, func(e *event.Event) { whole = append(whole, *e) }); err != nil {
		t.Fatal(err)
	}
	if len(steps) != len(whole) {
		t.Fatalf("%d events read step by step, %d at once", len(steps), len(whole))
	}
	for i := range whole {
		if string(event.Marshal(&steps[i])) != string(event.Marshal(&whole[i])) {
			t.Errorf("event %d:\n%s%s", i, event.Marshal(&steps[i]), event.Marshal(&whole[i]))
		}
	}
}

func TestSessionEvents(t *testing.T) {
	evs := parseAll(t, NewSession(recorded), rewrites)
	count := map[string]int{}
	var kinds []string
	for _, e := range evs {
		count[e.Kind]++
		if e.Kind != event.Meter {
			kinds = append(kinds, e.Kind+":"+e.Reason)
		}
		if e.Session != "3a26c4bf-bc1c-450d-bd53-66026f6b068f" || e.Agent != ID || e.Src != event.SrcLog ||
			e.Cwd != "/home/me/proj" || e.Transcript != recorded || e.T.IsZero() || e.ID == "" {
			t.Errorf("envelope: %s", event.Marshal(&e))
		}
	}
	want := "turn.start: turn.end: " +
		"turn.start: tool.start: tool.end: turn.end: " +
		"turn.start: tool.start: tool.end:" + auggiehook.ReasonRefused + " turn.end: " +
		"turn.start: tool.start: tool.end: turn.end: " +
		"turn.start: tool.start: tool.end:" + auggiehook.ReasonRefused + " turn.end: " +
		"turn.start: turn.end: turn.start: turn.end: " +
		"turn.start: interrupt:interrupted " +
		"turn.start: tool.start: tool.end: turn.end:"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("kinds:\n%s\nwant\n%s", got, want)
	}
	if count[event.Meter] != 13 { // every exchange but the interrupted one
		t.Errorf("%d meters", count[event.Meter])
	}
	var last *event.Event
	for i := range evs {
		switch e := &evs[i]; e.Kind {
		case event.Meter:
			if last != nil && *e.CostUSD <= *last.CostUSD {
				t.Errorf("cost did not grow: %v then %v", *last.CostUSD, *e.CostUSD)
			}
			last = e
		case event.ToolStart:
			if e.Tool != "launch-process" || !strings.HasPrefix(e.ToolID, "toolu_fake") || e.Text == "" {
				t.Errorf("tool.start %s", event.Marshal(e))
			}
		}
	}
	if last == nil || last.Model != "fake-model" || last.Tokens.In <= 0 || last.Tokens.CacheRead <= 0 || last.Tokens.Out <= 0 ||
		last.Context.Size != DefaultWindow || last.Context.Used != last.Tokens.In || *last.Context.LeftPct != 98 {
		t.Errorf("last meter %s", event.Marshal(last))
	}
	for _, e := range evs {
		if e.Kind == event.TurnStart && strings.HasPrefix(e.Text, "Repeat this back") && e.Text != "Repeat this back:\nTool Approval Required\n\nTerminal: rm -rf /tmp/x\n\n [A]llow [D]eny" {
			t.Errorf("a prompt of several lines: %q", e.Text)
		}
	}
}

func TestSessionFallbacks(t *testing.T) {
	// No sessionId: the file's name; no finishedAt: the file's modified.
	doc := `{"modified":"2026-12-04T18:00:00Z","agentState":{"modelId":"m"},"subAgentCostUsd":0.5,"chatHistory":[
		{"exchange":{"request_message":"hi","response_text":"yo","request_nodes":[],"response_nodes":[
			{"type":9,"billing_metadata":{"transaction_id":"x","credits_consumed":3,"usage_unit":1}},
			{"type":10,"token_usage":{"input_tokens":150000,"output_tokens":5,"max_context_tokens":1000000}}]},"completed":true}]}`
	var evs []event.Event
	p := NewSession("/s/abc.json")
	if err := p.ParseWhole([]byte(doc), func(e *event.Event) { evs = append(evs, *e) }); err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[0].Session != "abc" || evs[0].Text != "hi" || evs[0].T.Format("15:04") != "18:00" {
		t.Fatalf("%d events: %v", len(evs), evs)
	}
	m := evs[1]
	if m.Kind != event.Meter || m.Model != "m" || m.Context.Size != 1000000 || *m.Context.LeftPct != 85 || m.CostUSD == nil || *m.CostUSD != 0.5 {
		t.Errorf("meter %s", event.Marshal(&m))
	}
	if evs[2].Kind != event.TurnEnd || evs[2].Text != "yo" {
		t.Errorf("end %s", event.Marshal(&evs[2]))
	}
	if err := NewSession("/s/x.json").ParseWhole([]byte("{not json"), func(*event.Event) {}); err == nil {
		t.Error("no error for a broken file")
	}
}

func TestCheckpoints(t *testing.T) {
	parsertest.CheckpointsFiles(t, func(string) provider.TranscriptParser { return NewSession(recorded) }, rewrites)
}

// A long session: a checkpoint keeps the newest exchanges only, and a
// parser restored from it emits nothing again.
func TestCheckpointBounded(t *testing.T) {
	b, _ := os.ReadFile(recorded)
	var many bytes.Buffer
	many.Write(b[:bytes.Index(b, []byte(`"chatHistory": [`))+len(`"chatHistory": [`)])
	for i := range 200 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`{"exchange":{"request_message":"p","response_text":"r","request_id":"req-` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `-` + itoa(i) + `","request_nodes":[],"response_nodes":[]},"completed":true,"finishedAt":"2026-12-04T18:00:00Z"}`)
	}
	many.WriteString("]}")
	p := NewSession(recorded)
	n := 0
	if err := p.ParseWhole(many.Bytes(), func(*event.Event) { n++ }); err != nil {
		t.Fatal(err)
	}
	cp, err := p.Checkpoint()
	if err != nil || len(cp) > 4096 || n != 400 {
		t.Fatalf("checkpoint of %d bytes, %v; %d events", len(cp), err, n)
	}
	q := NewSession(recorded)
	if err := q.Restore(cp); err != nil {
		t.Fatal(err)
	}
	q.ParseWhole(many.Bytes(), func(e *event.Event) { t.Errorf("again: %s", event.Marshal(e)) })
}

func itoa(i int) string {
	return string(rune('0'+i/100)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
}

func FuzzParseWhole(f *testing.F) {
	b, _ := os.ReadFile(recorded)
	f.Add(b)
	rw, _ := os.ReadFile(rewrites)
	for _, l := range bytes.SplitN(rw, []byte("\n"), 4)[:3] {
		f.Add(l)
	}
	f.Add([]byte(`{"chatHistory":[{"exchange":{"request_nodes":[{"type":1,"tool_result_node":{"tool_use_id":"a"}}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := NewSession(filepath.Join("s", "x.json"))
		var out []event.Event
		emit := func(e *event.Event) { out = append(out, *e) }
		if p.ParseWhole(data, emit) != nil {
			return
		}
		n := len(out)
		p.ParseWhole(data, emit) // the same file again: nothing new
		if len(out) != n {
			t.Fatalf("a second read emitted %d more", len(out)-n)
		}
		for i := range out {
			if err := out[i].Validate(); err != nil {
				t.Fatal(err)
			}
			var back event.Event
			line := event.Marshal(&out[i])
			if err := event.Decode(line[:len(line)-1], &back); err != nil {
				t.Fatalf("round trip: %v", err)
			}
		}
		cp, err := p.Checkpoint()
		if err != nil {
			t.Fatal(err)
		}
		if err := NewSession("x").Restore(cp); err != nil {
			t.Fatal(err)
		}
	})
}
