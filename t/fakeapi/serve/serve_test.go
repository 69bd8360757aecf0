package serve

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

type rec struct {
	Path   string
	Status int
}

func (r rec) String() string { return fmt.Sprintf("%s -> %d", r.Path, r.Status) }

// echo is a fake with one route: it records the request, holds the reply
// for the SLOW in the path's query, then streams two events and [DONE].
type echo struct{ *Server[rec] }

func (e echo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := e.ReadBody(r)
	e.Record(rec{r.URL.Path, 200})
	sse := StartSSE(w, "x-id", fmt.Sprint(e.Next()))
	sse.Event("start", map[string]string{"body": string(body)})
	if !e.Sleep(r.Context(), Slow(r.URL.Query().Get("q"))) {
		return
	}
	sse.Event("", map[string]int{"n": 1})
	sse.Done()
}

func startEcho(t *testing.T, trace io.Writer) echo {
	t.Helper()
	s, err := Listen[rec]("fake echo", trace)
	if err != nil {
		t.Fatal(err)
	}
	e := echo{s}
	s.Serve(e)
	return e
}

func TestServerStreamsRecordsAndTraces(t *testing.T) {
	var trace bytes.Buffer
	e := startEcho(t, &trace)
	defer e.Close()
	if !strings.HasPrefix(e.URL, "http://127.0.0.1:") || e.Name() != "fake echo" {
		t.Fatalf("URL %q name %q", e.URL, e.Name())
	}
	for i := 1; i <= 2; i++ {
		resp, err := http.Post(e.URL+"/a?q=x", "application/json", strings.NewReader(`{"k":1}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := "event: start\ndata: {\"body\":\"{\\\"k\\\":1}\"}\n\ndata: {\"n\":1}\n\ndata: [DONE]\n\n"
		if string(b) != want || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("x-id") != fmt.Sprint(i) {
			t.Errorf("reply %d: %q %v", i, b, resp.Header)
		}
	}
	if got := e.Log(); got != "/a -> 200\n/a -> 200\n" {
		t.Errorf("log %q", got)
	}
	if got := trace.String(); got != "/a?q=x {\"k\":1}\n/a?q=x {\"k\":1}\n" {
		t.Errorf("trace %q", got)
	}
}

func TestSlowReplyEndsAtClose(t *testing.T) {
	e := startEcho(t, nil)
	t0 := time.Now()
	resp, err := http.Post(e.URL+"/a?q=SLOW:200ms", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if d := time.Since(t0); d < 200*time.Millisecond || !strings.HasSuffix(string(b), "[DONE]\n\n") {
		t.Errorf("held %s: %q", d, b)
	}

	resp, err = http.Post(e.URL+"/a?q=SLOW:60s", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The first event is out before the hold: the client is mid-reply.
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if line != "event: start\n" {
		t.Errorf("first line %q", line)
	}
	t0 = time.Now()
	e.Close()
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("Close took %s with a held reply", d)
	}
	resp.Body.Close()
}

func TestCloseUnserved(t *testing.T) {
	s, err := Listen[rec]("fake", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

func TestChunks(t *testing.T) {
	if got := strings.Join(Chunks("héllo wörld", 3), "|"); got != "hé|llo| w|ör|ld" {
		t.Errorf("Chunks = %q", got)
	}
	if got := Chunks("", 4); len(got) != 1 || got[0] != "" {
		t.Errorf("empty = %q", got)
	}
	for _, s := range []string{"abc", strings.Repeat("é✓", 20)} {
		parts := Chunks(s, 5)
		if strings.Join(parts, "") != s {
			t.Errorf("Chunks(%q) = %q", s, parts)
		}
		for _, p := range parts {
			if !utf8.ValidString(p) || len(p) > 5 {
				t.Errorf("chunk %q", p)
			}
		}
	}
}

func TestClamp(t *testing.T) {
	for in, want := range map[string]string{
		"a  b\n\tc": "a b c",
		"abcdefgh":  "abcde…",
		"abcdé":     "abcd…", // never half a rune
	} {
		if got := Clamp(in, 5); got != want {
			t.Errorf("Clamp(%q) = %q, want %q", in, got, want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe to read while Command writes to it.
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

func TestCommand(t *testing.T) {
	trace := t.TempDir() + "/trace"
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	var extra string
	code := make(chan int)
	go func() {
		code <- Command(ctx, "fakeecho", []string{"-trace", trace, "-extra", "x"}, &stdout, &stderr,
			func(fs *flag.FlagSet) { fs.StringVar(&extra, "extra", "", "") },
			func(tw io.Writer) (*Server[rec], error) {
				if tw == nil || extra != "x" {
					return nil, fmt.Errorf("trace %v extra %q", tw, extra)
				}
				return startEcho(t, tw).Server, nil
			})
	}()
	var url string
	for deadline := time.Now().Add(5 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		url = strings.TrimSpace(stdout.String())
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("printed %q (stderr %q)", url, stderr.String())
	}
	resp, err := http.Post(url+"/b", "", strings.NewReader("hi"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(stderr.String(), "/b -> 200") && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if c := <-code; c != 0 || !strings.Contains(stderr.String(), "/b -> 200") {
		t.Errorf("exit %d, stderr %q", c, stderr.String())
	}

	var out, errb bytes.Buffer
	if c := Command[rec](context.Background(), "fakeecho", []string{"-nope"}, &out, &errb, nil, nil); c != 2 {
		t.Errorf("bad flag: exit %d", c)
	}
	errb.Reset()
	c := Command(context.Background(), "fakeecho", nil, &out, &errb, nil,
		func(io.Writer) (*Server[rec], error) { return nil, fmt.Errorf("no port") })
	if c != 2 || errb.String() != "fakeecho: no port\n" {
		t.Errorf("start error: exit %d, %q", c, errb.String())
	}
}

func TestReadSSE(t *testing.T) {
	evs, err := ReadSSE(strings.NewReader("event: a\ndata: {\"x\":1}\n\ndata: 2\ndata: 3\n\n\ndata: [DONE]\n\n"))
	want := []Event{{"a", `{"x":1}`}, {"", "2\n3"}, {"", "[DONE]"}}
	if err != nil || fmt.Sprint(evs) != fmt.Sprint(want) {
		t.Errorf("got %q, %v", evs, err)
	}
	for _, bad := range []string{"data: x\n", "nope\n\n", "event: a\n"} {
		if _, err := ReadSSE(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadSSE(%q): no error", bad)
		}
	}
}

func FuzzReadSSE(f *testing.F) {
	f.Add("event: a\ndata: {}\n\n")
	f.Add("data: [DONE]\n\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		evs, err := ReadSSE(strings.NewReader(s))
		if err == nil {
			// What parsed writes back and parses the same.
			var b strings.Builder
			for _, e := range evs {
				if e.Name != "" {
					fmt.Fprintf(&b, "event: %s\n", e.Name)
				}
				for _, l := range strings.Split(e.Data, "\n") {
					fmt.Fprintf(&b, "data: %s\n", l)
				}
				b.WriteString("\n")
			}
			again, err := ReadSSE(strings.NewReader(b.String()))
			if err != nil || fmt.Sprint(again) != fmt.Sprint(evs) {
				t.Errorf("%q: round trip %q, %v", s, again, err)
			}
		}
	})
}
