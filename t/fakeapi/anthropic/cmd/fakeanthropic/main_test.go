package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to read while run writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRun(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	code := make(chan int)
	go func() { code <- run(ctx, []string{"-trace", trace}, &stdout, &stderr) }()

	var url string
	for deadline := time.Now().Add(5 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		url = strings.TrimSpace(stdout.String())
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("printed %q", url)
	}
	resp, err := http.Post(url+"/v1/messages", "application/json",
		strings.NewReader(`{"model":"m","tools":[{}],"messages":[{"role":"user","content":"RUN: ls"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(stderr.String(), "reply=tool:Bash ls") && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Errorf("exit %d", c)
	}
	if !strings.Contains(stderr.String(), "POST /v1/messages model=m") {
		t.Errorf("request log on stderr: %q", stderr.String())
	}
	if b, _ := os.ReadFile(trace); !strings.Contains(string(b), `"RUN: ls"`) {
		t.Errorf("trace: %q", b)
	}
}

func TestRunBadFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if c := run(context.Background(), []string{"-nope"}, &out, &errb); c != 2 {
		t.Errorf("exit %d, want 2", c)
	}
}
