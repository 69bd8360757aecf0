package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkSegment is ag-detect --pane in process: flags, state file,
// output (the rest of a prompt segment's cost is starting the program).
func BenchmarkSegment(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	sb.WriteString(`{"v":1,"t":"2026-11-30T03:00:00.000Z","sessions":[`)
	for i := 0; i < 20; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString("\n" + `{"v":1,"t":"2026-11-30T03:00:00.000Z","kind":"state","agent":"claude","session":"s","src":"fold","pane":"%` + string(rune('a'+i)) + `","status":"waiting","attention":"permission","tool":"Bash","text":"go test ./..."}`)
	}
	sb.WriteString("\n]}\n")
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	b.Setenv("AG_DIR", dir)
	b.Setenv("TMUX_PANE", "%c")
	b.ReportAllocs()
	for b.Loop() {
		if code := run(context.Background(), []string{"--pane"}, nil, io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}
