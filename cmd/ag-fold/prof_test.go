package main
import ("testing";"os";"io";"time";"context";"runtime/pprof")
func TestProf(t *testing.T) {
	in := os.Getenv("PROF_IN"); if in == "" { t.Skip() }
	f, _ := os.Open(in)
	p, _ := os.Create("/tmp/agb/fcpu.prof")
	pprof.StartCPUProfile(p)
	newFolder(io.Discard, os.Stderr, func(string) string { return "" }, time.Now).main(context.Background(), []string{"--snapshot", "--no-state", "--check", "0"}, f)
	pprof.StopCPUProfile()
}
