//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Proc is a background program of the harness: its stderr goes to a file
// (shown on failure), it is stopped with SIGTERM (then SIGKILL) at teardown.
type Proc struct {
	Name   string
	Cmd    *exec.Cmd
	Stderr string // the stderr file
	done   chan struct{}
	err    error
}

// Command prepares argv with the harness env, dir Project and stderr to a
// file; the caller wires stdin/stdout, then calls h.Start.
func (h *Harness) Command(name string, argv ...string) *Proc {
	h.T.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = h.Environ(), h.Project
	p := &Proc{Name: name, Cmd: cmd, Stderr: filepath.Join(h.Root, name+".stderr"), done: make(chan struct{})}
	f, err := os.Create(p.Stderr)
	if err != nil {
		h.T.Fatal(err)
	}
	cmd.Stderr = f
	h.OnClose(func() { f.Close() })
	h.Dump(name+" stderr", func() string {
		s := tailFile(p.Stderr, 100)
		select {
		case <-p.done:
			s += fmt.Sprintf("\n(exited: %v)", p.err)
		default:
		}
		return s
	})
	return p
}

// Start starts p and registers its stop.
func (h *Harness) Start(p *Proc) {
	h.T.Helper()
	if err := p.Cmd.Start(); err != nil {
		h.T.Fatalf("starting %s: %v", p.Name, err)
	}
	go func() {
		p.err = p.Cmd.Wait()
		close(p.done)
	}()
	h.OnClose(p.Stop)
}

// Exited reports whether p has ended, and how.
func (p *Proc) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Stop ends p: SIGTERM, then SIGKILL after 3 s.
func (p *Proc) Stop() {
	if ok, _ := p.Exited(); ok || p.Cmd.Process == nil {
		return
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(3 * time.Second):
		p.Cmd.Process.Kill()
		<-p.done
	}
}

// Pipeline is a shell-like pipeline of programs, such as the login
// pipeline `ag-tail --follow | ag-fold`: each stage's output is kept in a
// file (shown on failure) as it flows on, and the last stage's is watched.
type Pipeline struct {
	Stages  []*Proc
	Outputs []string // the output file of each stage but the last
	Out     *Watcher // the last stage's output
}

// StartPipeline starts the stages, each an argv whose first word, when it
// has no slash, is an ag program built from this tree (Bin), piped into the
// next, all in the harness environment. At teardown the first stage is
// stopped first and each later one gets the end of its input, as at logout.
func (h *Harness) StartPipeline(stages ...[]string) *Pipeline {
	h.T.Helper()
	n := len(stages)
	if n == 0 {
		h.T.Fatal("StartPipeline: no stages")
	}
	pl := &Pipeline{Stages: make([]*Proc, n), Outputs: make([]string, n-1)}
	seen := map[string]int{}
	for i, argv := range stages {
		argv = append([]string(nil), argv...)
		name := filepath.Base(argv[0])
		if !strings.Contains(argv[0], "/") {
			argv[0] = Bin(h.T, argv[0])
		}
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s.%d", name, seen[name])
		}
		pl.Stages[i] = h.Command(name, argv...)
	}

	// Plain OS pipes, so each reader sees EOF (not "file already closed")
	// when its writer ends, even mid-teardown.
	reads := make([]*os.File, n)
	writes := make([]*os.File, n)
	recs := make([]*os.File, n-1)
	ins := make([]io.WriteCloser, n)
	copied := make([]chan struct{}, n)
	for i, p := range pl.Stages {
		r, w, err := os.Pipe()
		if err != nil {
			h.T.Fatal(err)
		}
		reads[i], writes[i] = r, w
		p.Cmd.Stdout = w
		if i > 0 {
			if ins[i], err = p.Cmd.StdinPipe(); err != nil {
				h.T.Fatal(err)
			}
			copied[i] = make(chan struct{})
			pl.Outputs[i-1] = filepath.Join(h.Root, pl.Stages[i-1].Name+".out.ndjson")
			if recs[i-1], err = os.Create(pl.Outputs[i-1]); err != nil {
				h.T.Fatal(err)
			}
		}
	}
	// Teardown runs in reverse of registration: stage 0 stops, its last
	// lines reach stage 1, stage 1 stops, and so on.
	for i := n - 1; i >= 0; i-- {
		h.Start(pl.Stages[i])
		if i > 0 {
			done, rec := copied[i], recs[i-1]
			h.OnClose(func() {
				select {
				case <-done:
				case <-time.After(3 * time.Second):
				}
				rec.Close()
			})
		}
	}
	for _, w := range writes {
		w.Close() // the children hold their own copies
	}
	for i := 1; i < n; i++ {
		go func(r *os.File, rec *os.File, in io.WriteCloser, done chan struct{}) {
			defer close(done)
			io.Copy(io.MultiWriter(rec, in), r)
			in.Close()
			r.Close()
		}(reads[i-1], recs[i-1], ins[i], copied[i])
	}
	last := pl.Stages[n-1].Name
	pl.Out = Watch(last, reads[n-1])
	for i, out := range pl.Outputs {
		h.Dump(pl.Stages[i].Name+" output", func() string { return tailFile(out, 200) })
	}
	h.Dump(last+" states", pl.Out.Timeline)
	h.Dump(last+" output", func() string {
		s := pl.Out.Text()
		if bad := pl.Out.Bad(); len(bad) > 0 {
			s += "\nundecodable:\n" + strings.Join(bad, "\n")
		}
		return s
	})
	return pl
}
