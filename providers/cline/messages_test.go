package cline

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/internal/parsertest"
	"github.com/agwatch/ag/providers/provider"
)

// version is one recorded state of a session file: when it was seen, and
// its JSON.
type version struct {
	seen int64
	data []byte
}

// readVersions reads testdata/<name>: each line {"seen_ns", "<key>": the
// file}, as Cline 3.0.65 wrote it during the recorded session (the
// messages files without their system prompt).
func readVersions(t testing.TB, name, key string) []version {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []version
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var l map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		var v version
		json.Unmarshal(l["seen_ns"], &v.seen)
		v.data = l[key]
		out = append(out, v)
	}
	return out
}

// messagesOf are the recorded versions of one session's messages file.
func messagesOf(t testing.TB, session string) [][]byte {
	var out [][]byte
	for _, v := range readVersions(t, "messages-3.0.65.jsonl", "file") {
		if strings.Contains(string(v.data[:200]), `"sessionId":"`+session+`"`) {
			out = append(out, v.data)
		}
	}
	return out
}

const recordedSession = "1796409520602_u5r45"

// TestMessages: the recorded session read as ag-tail reads it, each
// version whole: a turn's start for each prompt (its text out of Cline's
// wrapping), a meter for each response with metrics, nothing twice.
func TestMessages(t *testing.T) {
	t.Parallel()
	vs := messagesOf(t, recordedSession)
	if len(vs) < 10 {
		t.Fatalf("%d versions", len(vs))
	}
	m := NewMessages("/h/.cline/data/sessions/" + recordedSession + "/" + recordedSession + ".messages.json")
	var prompts []string
	meters := 0
	ids := map[string]bool{}
	for _, v := range vs {
		if err := m.ParseWhole(v, func(e *event.Event) {
			if ids[e.ID] {
				t.Errorf("twice: %s", event.Marshal(e))
			}
			ids[e.ID] = true
			if e.Agent != ID || e.Session != recordedSession || e.Src != event.SrcLog || e.Transcript == "" {
				t.Errorf("%s", event.Marshal(e))
			}
			switch e.Kind {
			case event.TurnStart:
				prompts = append(prompts, e.Text)
			case event.Meter:
				meters++
				if e.Model != "fake-model" || e.Tokens.In <= 0 || e.Tokens.CacheRead <= 0 || e.Context.Used != e.Tokens.In+e.Tokens.CacheRead || e.Context.Size != 0 {
					t.Errorf("meter %s", event.Marshal(e))
				}
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"say hello SLOW:5s", "RUN: sleep 3; echo auto > auto.txt", "RUN: echo marker > marker.txt", "RUN: echo denied > denied.txt",
		"RUN: echo esc > esc.txt"}
	if len(prompts) < 12 || strings.Join(prompts[:5], "|") != strings.Join(want, "|") {
		t.Errorf("prompts %q", prompts)
	}
	for _, p := range prompts {
		if strings.Contains(p, "user_input") || strings.Contains(p, "mode_notice") {
			t.Errorf("a prompt still wrapped: %q", p)
		}
	}
	if meters < 12 {
		t.Errorf("%d meters", meters)
	}
}

// TestMessagesCheckpoints: checkpointed after any version, a fresh parser
// goes on as one that read them all (parsertest).
func TestMessagesCheckpoints(t *testing.T) {
	t.Parallel()
	parsertest.WholeCheckpoints(t, func() provider.WholeFileParser { return NewMessages("/x/" + recordedSession + ".messages.json") },
		messagesOf(t, recordedSession)...)
}

// TestMessagesRewritten: a compaction rewrites the file without the
// messages read: nothing is read twice, what comes after is read.
func TestMessagesRewritten(t *testing.T) {
	m := NewMessages("/x/s.messages.json")
	var got []string
	emit := func(e *event.Event) { got = append(got, e.Kind+":"+e.Text) }
	m.ParseWhole([]byte(`{"sessionId":"s","messages":[{"id":"u1","role":"user","content":[{"type":"text","text":"one"}],"ts":1},{"id":"a1","role":"assistant","content":[],"ts":2,"metrics":{"inputTokens":10}}]}`), emit)
	m.ParseWhole([]byte(`{"sessionId":"s","messages":[{"id":"sum","role":"user","content":[{"type":"text","text":"summary"}],"ts":3}]}`), emit)
	m.ParseWhole([]byte(`{"sessionId":"s","messages":[{"id":"sum","role":"user","content":[{"type":"text","text":"summary"}],"ts":3},{"id":"u2","role":"user","content":"<user_input mode=\"act\">two</user_input>","ts":4}]}`), emit)
	if strings.Join(got, "|") != "turn.start:one|meter:|turn.start:two" {
		t.Errorf("%q", got)
	}
	if err := m.ParseWhole([]byte(`{"messages":`), emit); err == nil {
		t.Error("a file half written: no error")
	}
	if err := m.Parse([]byte("{}"), emit); err == nil {
		t.Error("Parse of a line: no error")
	}
}

func FuzzMessages(f *testing.F) {
	for _, v := range messagesOf(f, recordedSession)[:3] {
		f.Add(v)
	}
	f.Add([]byte(`{"messages":[{"role":"assistant","metrics":{"inputTokens":-5,"cacheReadTokens":9},"modelInfo":{"contextWindow":3}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := NewMessages("/x/s.messages.json")
		for i := 0; i < 2; i++ {
			m.ParseWhole(data, func(e *event.Event) {
				if e.Session == "" || e.Agent != ID || e.Tokens != nil && (e.Tokens.In < 0) {
					t.Fatalf("%s", event.Marshal(e))
				}
				if e.Context != nil && e.Context.LeftPct != nil && (*e.Context.LeftPct < 0 || *e.Context.LeftPct > 100) {
					t.Fatalf("%s", event.Marshal(e))
				}
			})
		}
		b, _ := m.Checkpoint()
		if err := NewMessages("/x/s.messages.json").Restore(b); err != nil {
			t.Fatal(err)
		}
	})
}
