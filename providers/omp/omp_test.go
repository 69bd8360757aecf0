package omp

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

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
	if d := SessionDirs(env); len(d) != 2 || d[0] != filepath.Join(xdg, "omp", "sessions") {
		t.Errorf("with %s/omp: %q", xdg, d)
	}
}

// TestXDGSessionModels: a session in the XDG data dir (as omp 18.2.3
// writes one when $XDG_DATA_HOME/omp exists) gets its window from the
// agent directory's models.yml, where omp keeps it.
func TestXDGSessionModels(t *testing.T) {
	home, xdg := t.TempDir(), t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home, "XDG_DATA_HOME": xdg}[k] }
	agent := AgentDir(env)
	os.MkdirAll(agent, 0o700)
	os.WriteFile(filepath.Join(agent, "models.yml"), []byte("providers:\n  fake:\n    models:\n      - id: fake-model\n        contextWindow: 64000\n"), 0o600)
	path := filepath.Join(xdg, "omp", "sessions", "-tmp-w", "2026-12-03T09-00-00-000Z_01a3c4d5-e6f7-7000-8000-9a8b7c6d5e4f.jsonl")
	data, _ := os.ReadFile("testdata/session.jsonl")
	p := (&Provider{env: env}).NewTranscriptParser(path)
	var size int64
	for l := range bytes.Lines(data) {
		p.Parse(bytes.TrimSuffix(l, []byte("\n")), func(e *event.Event) {
			if e.Context != nil {
				size = e.Context.Size
			}
		})
	}
	if size != 64000 {
		t.Errorf("window %d, want models.yml's 64000", size)
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

// TestModelsYAML: omp reads models.yml (else models.yaml), and a
// models.json only until it has migrated it: the window is the YAML's
// when there is one, follows its edits, and is the JSON's again when the
// YAML goes.
func TestModelsYAML(t *testing.T) {
	agent := filepath.Join(t.TempDir(), ".omp", "agent")
	path := filepath.Join(agent, "sessions", "--tmp-w--", "2026-12-03T09-00-00-000Z_01a3c4d5-e6f7-7000-8000-9a8b7c6d5e4f.jsonl")
	os.MkdirAll(filepath.Dir(path), 0o700)
	data, _ := os.ReadFile("testdata/session.jsonl")
	window := func() int64 {
		var size int64
		p := New().NewTranscriptParser(path)
		for l := range bytes.Lines(data) {
			p.Parse(bytes.TrimSuffix(l, []byte("\n")), func(e *event.Event) {
				if e.Context != nil {
					size = e.Context.Size
				}
			})
		}
		return size
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(agent, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// As omp 18.2.3 writes it when it migrates the JSON (YAML.stringify, 2 spaces).
	yml := func(n int) string {
		return "providers:\n  fake:\n    baseUrl: http://127.0.0.1:1/v1\n    api: openai-completions\n    models:\n      - id: fake-model\n        name: Fake Model\n        contextWindow: " +
			strconv.Itoa(n) + "\n        maxTokens: 4096\n"
	}
	for _, step := range []struct {
		name string
		do   func()
		want int64
	}{
		{"nothing declared", func() {}, 0},
		{"models.json alone", func() {
			write("models.json", `{"providers":{"fake":{"models":[{"id":"fake-model","contextWindow":100000}]}}}`)
		}, 100000},
		{"models.yaml over the JSON", func() { write("models.yaml", yml(64000)) }, 64000},
		{"models.yml over both", func() { write("models.yml", yml(200000)) }, 200000},
		{"models.yml edited", func() {
			write("models.yml", yml(128000))
			future := time.Now().Add(time.Minute) // a new mtime within the same clock tick
			os.Chtimes(filepath.Join(agent, "models.yml"), future, future)
		}, 128000},
		{"models.yml that does not parse declares nothing", func() { write("models.yml", "providers: [\n") }, 0},
		{"models.yml and .yaml gone: the JSON's", func() {
			os.Remove(filepath.Join(agent, "models.yml"))
			os.Remove(filepath.Join(agent, "models.yaml"))
		}, 100000},
	} {
		step.do()
		if got := window(); got != step.want {
			t.Errorf("%s: window %d, want %d", step.name, got, step.want)
		}
	}
}
