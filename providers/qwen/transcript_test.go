package qwen

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/internal/parsertest"
	"github.com/agwatch/ag/providers/provider"
)

var update = flag.Bool("update", false, "rewrite golden files")

const chatFile = "testdata/chat.jsonl" // recorded from Qwen Code 0.24.4 in make e2e's scenario

func parseAll(t testing.TB, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := NewChat(path)
	var out []byte
	for l := range bytes.Lines(data) {
		if err := c.Parse(bytes.TrimSuffix(l, []byte("\n")), func(e *event.Event) { out = event.AppendJSON(out, e) }); err != nil {
			t.Errorf("parse: %v", err)
		}
	}
	return out
}

// TestChatGolden: the recorded chat's events, every field.
func TestChatGolden(t *testing.T) {
	got := parseAll(t, chatFile)
	golden := "testdata/chat.golden"
	if *update {
		os.WriteFile(golden, got, 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("events differ from %s (go test -update to rewrite):\n%s", golden, got)
	}
}

// TestChatEvents: what the recorded session means, turn by turn.
func TestChatEvents(t *testing.T) {
	var kinds []string
	var meters int
	c := NewChat(chatFile)
	data, _ := os.ReadFile(chatFile)
	for l := range bytes.Lines(data) {
		c.Parse(bytes.TrimSuffix(l, []byte("\n")), func(e *event.Event) {
			if e.Kind == event.Meter {
				meters++
				if e.Model != "fake-model" || e.Tokens == nil || e.Tokens.CacheRead == 0 || e.Context == nil || e.Context.Size != DefaultWindow {
					t.Errorf("meter: %s", event.Marshal(e))
				}
				return
			}
			k := e.Kind
			if e.Reason != "" {
				k += ":" + e.Reason
			}
			kinds = append(kinds, k)
		})
	}
	if c.Session() != "" && meters == 0 {
		t.Error("no meters")
	}
	want := []string{
		// say hello: an answer
		"turn.start", "turn.end",
		// RUN: approved
		"turn.start", "tool.start", "tool.end", "turn.end",
		// RUN: denied, the turn ends
		"turn.start", "tool.start", "tool.end:denied", "interrupt:denied",
	}
	if len(kinds) < len(want) {
		t.Fatalf("kinds %v", kinds)
	}
	for i, w := range want {
		if kinds[i] != w {
			t.Fatalf("event %d: %s, want %s (all: %v)", i, kinds[i], w, kinds)
		}
	}
}

// TestChatCheckpoints: provider.Checkpointer's contract at every line.
func TestChatCheckpoints(t *testing.T) {
	parsertest.CheckpointsFiles(t, func(f string) provider.TranscriptParser { return NewChat(f) }, chatFile)
}

// FuzzChat: no record makes the parser fail but bytes that are no JSON,
// and every event it emits is a valid one of this chat.
func FuzzChat(f *testing.F) {
	data, _ := os.ReadFile(chatFile)
	for l := range bytes.Lines(data) {
		f.Add(bytes.TrimSpace(l))
	}
	f.Add([]byte(`{"uuid":"u","sessionId":"s","timestamp":"2026-12-04T00:00:00Z","type":"assistant","message":{"parts":[{"functionCall":null}]},"usageMetadata":{"promptTokenCount":-5}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		c := NewChat("p")
		c.Parse(line, func(e *event.Event) {
			if e.Agent != ID || e.Src != event.SrcLog || e.ID == "" || e.Session == "" {
				t.Fatalf("bad event %s", event.Marshal(e))
			}
			if e.Context != nil && (e.Context.LeftPct == nil || *e.Context.LeftPct < 0 || *e.Context.LeftPct > 100) {
				t.Fatalf("context %+v", e.Context)
			}
		})
	})
}
