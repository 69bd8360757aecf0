package omp

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/internal/parsertest"
	"github.com/agwatch/ag/providers/provider"
)

// TestAgentDir: PI_CONFIG_DIR is joined to HOME verbatim, an absolute one
// too (omp's own path.join); PI_CODING_AGENT_DIR wins; XDG_DATA_HOME/omp,
// when it exists, holds the sessions.
func TestAgentDir(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, home + "/.omp/agent"},
		{map[string]string{"PI_CONFIG_DIR": ".mine"}, home + "/.mine/agent"},
		{map[string]string{"PI_CONFIG_DIR": "/tmp/absolute-test"}, home + "/tmp/absolute-test/agent"},
		{map[string]string{"PI_CONFIG_DIR": "/x", "PI_CODING_AGENT_DIR": "/ag/dir"}, "/ag/dir"},
	} {
		tc.env["HOME"] = home
		env := func(k string) string { return tc.env[k] }
		if got := AgentDir(env); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.env, got, tc.want)
		}
		if got := New().ConfigPath(env); got != filepath.Join(tc.want, "extensions", "ag.js") {
			t.Errorf("extension %s", got)
		}
	}
	xdg := t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home, "XDG_DATA_HOME": xdg}[k] }
	if d := SessionDirs(env); len(d) != 1 {
		t.Errorf("no %s/omp: %q", xdg, d)
	}
	os.Mkdir(filepath.Join(xdg, "omp"), 0o700)
	if d := SessionDirs(env); len(d) != 2 || d[0] != filepath.Join(xdg, "omp", "agent", "sessions") {
		t.Errorf("with %s/omp: %q", xdg, d)
	}
}

func TestKeysAndCommands(t *testing.T) {
	km := New().Keys()
	for text, bad := range map[string]bool{"  /new": true, "!rm -rf x": true, " \t!ls": true, "a /b": false, "hello": false} {
		if got := km.UnsafeReply(text) != ""; got != bad {
			t.Errorf("%q unsafe %v", text, got)
		}
	}
	c := New().Commands()
	if l, err := c.ResumeCommand("01a0063f-51ed", provider.Launch{}); err != nil || l != "command omp --resume '01a0063f-51ed'" {
		t.Errorf("resume %q %v", l, err)
	}
	if l, err := c.SpawnCommand("it's", provider.Launch{Model: "opus"}); err != nil || l != `command omp --model opus 'it'\''s'` {
		t.Errorf("spawn %q %v", l, err)
	}
}

// TestSessionCheckpoints: omp's session files (Pi's format, with omp's
// padded title line and custom entries) go through Pi's parser, whose
// checkpoint a restarted ag-tail resumes from: restored after any line it
// goes on as one parser reading the whole file.
func TestSessionCheckpoints(t *testing.T) {
	agent := filepath.Join(t.TempDir(), ".omp", "agent")
	path := filepath.Join(agent, "sessions", "--tmp-w--", "2026-12-03T09-00-00-000Z_01a3c4d5-e6f7-7000-8000-9a8b7c6d5e4f.jsonl")
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(`{"providers":{"fake":{"models":[{"id":"fake-model","contextWindow":100000}]}}}`), 0o600)
	newParser := func() provider.TranscriptParser { return New().NewTranscriptParser(path) }
	parsertest.CheckpointsFiles(t, func(string) provider.TranscriptParser { return newParser() }, "testdata/session.jsonl")

	data, _ := os.ReadFile("testdata/session.jsonl")

	var meters []event.Event
	p := newParser()
	for l := range bytes.Lines(data) {
		p.Parse(bytes.TrimSuffix(l, []byte("\n")), func(e *event.Event) { meters = append(meters, *e) })
	}
	if len(meters) != 3 {
		t.Fatalf("%d meters, want one a response (the aborted one too)", len(meters))
	}
	second := meters[1]
	if second.Agent != ID || second.Session != "01a3c4d5-e6f7-7000-8000-9a8b7c6d5e4f" || second.Context == nil || second.Context.Size != 100000 ||
		second.Context.Used != 8379 || second.CostUSD == nil || math.Abs(*second.CostUSD-0.000085) > 1e-12 {
		t.Errorf("second meter %s", event.Marshal(&second))
	}
}
