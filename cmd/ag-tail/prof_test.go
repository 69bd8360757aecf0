package main

import (
	"context"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
)

func TestProf(t *testing.T) {
	c := os.Getenv("PROF_CORPUS")
	if c == "" {
		t.Skip()
	}
	h := t.TempDir()
	env := func(k string) string {
		return map[string]string{"HOME": h, "AG_DIR": h + "/.ag", "CLAUDE_CONFIG_DIR": c}[k]
	}
	f, _ := os.Create("/tmp/agb/cpu.prof")
	pprof.StartCPUProfile(f)
	newTail(io.Discard, os.Stderr, env, time.Now).main(context.Background(), []string{"--once"})
	pprof.StopCPUProfile()
	runtime.GC()
	m, _ := os.Create("/tmp/agb/mem.prof")
	pprof.Lookup("allocs").WriteTo(m, 0)
}
