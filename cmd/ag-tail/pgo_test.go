package main

import (
	"context"
	"io"
	"os"
	"testing"
	"time"
)

// BenchmarkOnce is ag-tail --once over the history AG_PGO_CORPUS names (a
// Claude config dir; make pgo generates one): the profile default.pgo is
// made from (make pgo).
func BenchmarkOnce(b *testing.B) {
	dir := os.Getenv("AG_PGO_CORPUS")
	if dir == "" {
		b.Skip("AG_PGO_CORPUS is not set (make pgo sets it)")
	}
	home := b.TempDir()
	env := func(k string) string {
		return map[string]string{"HOME": home, "AG_DIR": home + "/.ag", "CLAUDE_CONFIG_DIR": dir}[k]
	}
	for b.Loop() {
		tl := newTail(io.Discard, io.Discard, env, time.Now)
		if code := tl.main(context.Background(), []string{"--once"}); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
