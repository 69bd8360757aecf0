package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/safetext/safetexttest"
	"github.com/agwatch/ag/filters/state"
)

// FuzzStatuslineHostile: whatever Claude's payload names (a model's
// display name, paths, a rate limit) and the other sessions in the state
// file hold, the status line — the default one and a --format showing every
// field — carries no escape, control or bidi character, and a cost of
// 1e308 is a few characters.
func FuzzStatuslineHostile(f *testing.F) {
	for _, s := range safetexttest.Hostile {
		f.Add(s)
	}
	dir := f.TempDir()
	env := map[string]string{"AG_DIR": dir}
	format := `{{.Model}}|{{.ModelID}}|{{.Session}}|{{.Cwd}}|{{.Dir}}|{{.ProjectDir}}|{{.Version}}|{{.Transcript}}|` +
		`{{range .Limits}}{{.Window}}{{end}}|{{range .Others}}{{.Agent}}{{.Session}}{{.Tool}}{{.Text}}{{.Cwd}}{{.Host}}{{end}}`
	f.Fuzz(func(t *testing.T, s string) {
		q, _ := json.Marshal(s)
		payload := `{"session_id":` + string(q) + `,"transcript_path":` + string(q) + `,"cwd":` + string(q) +
			`,"model":{"id":` + string(q) + `,"display_name":` + string(q) + `},"version":` + string(q) +
			`,"workspace":{"current_dir":` + string(q) + `,"project_dir":` + string(q) + `},` +
			`"cost":{"total_cost_usd":1e308},"rate_limits":{"five_hour":{"used_percentage":1e308}}}`
		other := event.New(event.State, time.Now(), s, s)
		other.Src, other.Status, other.Attention, other.Tool, other.Text, other.Cwd = event.SrcFold, event.StatusWaiting, event.AttnPermission, s, s, s
		if err := state.Write(filepath.Join(dir, "state.json"), time.Now(), state.Self(0), []event.Event{other}); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{nil, {"--format", format}} {
			r := trySL(t, env, time.Now(), payload, args...)
			line, ok := strings.CutSuffix(r.stdout, "\n")
			if r.code != 0 || !ok {
				t.Fatalf("%q: exit %d, %q", args, r.code, r.stdout)
			}
			if i, c := safetexttest.Find(line, false); i >= 0 {
				t.Fatalf("%q: %s at byte %d of %q", args, c, i, r.stdout)
			}
			if args == nil && (!strings.Contains(line, "$1.0e+308") || len(line) > 2000) {
				t.Fatalf("the cost of 1e308 in %q", line)
			}
		}
	})
}

// TestHookStdinLeftOpen: an agent that writes its payload and keeps stdin
// open does not hold the hook: the event is in the spool, and the hook has
// exited, while stdin is still open.
func TestHookStdinLeftOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ag")
	c := hookProcess(t, dir, "")
	c.Stdin = nil
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	in.Write([]byte(payload))
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		c.Process.Kill()
		t.Fatal("the hook waited for stdin to close after a whole payload came")
	}
	if evs := spoolLines(t, dir); len(evs) != 1 || evs[0].ToolID != "toolu_1" {
		t.Errorf("spool: %+v", evs)
	}
}

// endless is stdin that never ends: a JSON string that never closes.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 && len(p) > 0 {
		p[0] = '{'
		e.n++
		return 1, nil
	}
	for i := range p {
		p[i] = 'x'
	}
	if e.n < 2 {
		copy(p, `"a":"`)
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestHookPayloadBound: a payload past the bound is dropped after reading
// the bound, not all of it (the hook read 843 MB to drop it), and the hook
// still says nothing and exits 0.
func TestHookPayloadBound(t *testing.T) {
	in := &endless{}
	var out, errb strings.Builder
	c := newCmd(context.Background(), in, &out, &errb)
	dir := t.TempDir()
	c.env = func(k string) string { return map[string]string{"AG_DIR": dir}[k] }
	done := make(chan int, 1)
	go func() { done <- c.main([]string{"claude"}) }()
	select {
	case code := <-done:
		if code != 0 || out.Len()+errb.Len() != 0 {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the hook is still reading after %d MB", in.n>>20)
	}
	if in.n > maxPayload+1<<20 {
		t.Errorf("read %d bytes of a payload bounded at %d", in.n, maxPayload)
	}
}

func TestValueEnd(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int // bytes up to the end of the value, -1: not ended
	}{
		{`{}`, 2},
		{` {"a":1} trailing`, 8},
		{`{"a":"}"}`, 9},
		{`{"a":"\"}"}`, 11},
		{`{"a":"\\"}`, 10},
		{`{"a":[{"b":"]"}]}`, 17},
		{`{"a":`, -1},
		{`[1,[2]]x`, 7},
		{`"a string"`, -1},
	} {
		got := -1
		var v valueEnd
		for i := range len(c.in) { // a byte at a time, as a slow pipe gives it
			if v.scan([]byte{c.in[i]}) {
				got = i + 1
				break
			}
		}
		if got != c.want {
			t.Errorf("%q: ends at %d, want %d", c.in, got, c.want)
		}
	}
}

// FuzzValueEnd: for a JSON object, the scanner ends where encoding/json
// says the value ends, whatever the chunks it arrives in.
func FuzzValueEnd(f *testing.F) {
	f.Add(payload, 7)
	f.Add(`{"a":"\u00e9\\\"}","b":[1,{"c":"]"}]}`, 1)
	f.Fuzz(func(t *testing.T, s string, chunk int) {
		d := json.NewDecoder(strings.NewReader(s))
		var v map[string]any
		if d.Decode(&v) != nil {
			return
		}
		want := int(d.InputOffset())
		chunk = max(1, chunk%64)
		var e valueEnd
		for i := 0; i < len(s); i += chunk {
			j := min(i+chunk, len(s))
			if e.scan([]byte(s[i:j])) {
				if want <= i || want > j {
					t.Fatalf("%q: ended in chunk [%d,%d), the value ends at %d", s, i, j, want)
				}
				return
			}
		}
		t.Fatalf("%q: never ended (the value ends at %d)", s, want)
	})
}

// TestStateDirNotOurs: a state folder another user may write, or a spool
// that is a symlink or a FIFO, gets nothing from the hook — which still
// says nothing, exits 0, and does not wait.
func TestStateDirNotOurs(t *testing.T) {
	type setup func(t *testing.T, dir string) (check func(t *testing.T))
	untouched := func(path, want string) func(t *testing.T) {
		return func(t *testing.T) {
			if b, _ := os.ReadFile(path); string(b) != want {
				t.Errorf("%s now holds %q", path, b)
			}
		}
	}
	noSpool := func(dir string) func(t *testing.T) {
		return func(t *testing.T) {
			if _, err := os.Lstat(filepath.Join(dir, "spool.ndjson")); err == nil {
				t.Errorf("a spool was written in %s", dir)
			}
		}
	}
	cases := []struct {
		name string
		set  setup
	}{
		{"writable by others", func(t *testing.T, dir string) func(*testing.T) {
			os.Chmod(dir, 0o777)
			return noSpool(dir)
		}},
		{"writable by group", func(t *testing.T, dir string) func(*testing.T) {
			os.Chmod(dir, 0o770)
			return noSpool(dir)
		}},
		{"another user's", func(t *testing.T, dir string) func(*testing.T) {
			if os.Geteuid() != 0 {
				t.Skip("only root can give a folder away")
			}
			if err := os.Chown(dir, 65534, 65534); err != nil {
				t.Skip(err)
			}
			return noSpool(dir)
		}},
		{"spool a symlink to a victim", func(t *testing.T, dir string) func(*testing.T) {
			victim := filepath.Join(t.TempDir(), ".bashrc")
			os.WriteFile(victim, []byte("# mine\n"), 0o600)
			os.Symlink(victim, filepath.Join(dir, "spool.ndjson"))
			return untouched(victim, "# mine\n")
		}},
		{"spool a FIFO", func(t *testing.T, dir string) func(*testing.T) {
			if err := syscall.Mkfifo(filepath.Join(dir, "spool.ndjson"), 0o600); err != nil {
				t.Skip(err)
			}
			return func(*testing.T) {}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ag")
			os.Mkdir(dir, 0o700)
			check := tc.set(t, dir)
			c := hookProcess(t, dir, payload)
			var out, errb strings.Builder
			c.Stdout, c.Stderr = &out, &errb
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			select {
			case err := <-done:
				if err != nil || out.Len()+errb.Len() > 0 {
					t.Errorf("%v, stdout %q, stderr %q; want exit 0 and silence", err, out.String(), errb.String())
				}
			case <-time.After(10 * time.Second):
				c.Process.Kill()
				t.Fatal("the hook is held")
			}
			check(t)
		})
	}
}

// TestBatchedLinesReadWhole: ag's own plugins hand several JSON lines at
// once and close stdin: every line is mapped, not only the first object.
func TestBatchedLinesReadWhole(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	for i := range 3 {
		fmt.Fprintf(&in, `{"type":"permission.asked","t":1764470000000,"pid":1,"properties":{"id":"p%d","sessionID":"ses_1","permission":"bash","metadata":{"command":"ls"}}}`+"\n", i)
	}
	if r := try(t, map[string]string{"AG_DIR": dir}, in.String(), "opencode"); r != (result{}) {
		t.Fatalf("%+v", r)
	}
	if evs := spoolLines(t, dir); len(evs) != 3 {
		t.Errorf("%d events from 3 lines", len(evs))
	}
}
