package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"
	"time"
)

// BenchmarkSnapshot is ag-fold --snapshot over the events AG_PGO_EVENTS
// names (ag-tail --once of a generated history; make pgo writes them): the
// profile default.pgo is made from (make pgo).
func BenchmarkSnapshot(b *testing.B) {
	name := os.Getenv("AG_PGO_EVENTS")
	if name == "" {
		b.Skip("AG_PGO_EVENTS is not set (make pgo sets it)")
	}
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	home := b.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home, "AG_DIR": home + "/.ag"}[k] }
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f := newFolder(io.Discard, io.Discard, env, time.Now)
		if code := f.main(context.Background(), []string{"--snapshot"}, bytes.NewReader(data)); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
