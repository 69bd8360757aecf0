package serve

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
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
	if !strings.HasPrefix(e.URL, "http://127.0.0.1:") || e.BaseURL() != e.URL {
		t.Fatalf("URL %q, BaseURL %q", e.URL, e.BaseURL())
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
	code := make(chan int)
	go func() {
		code <- Command(ctx, "fakeecho", []string{"-trace", trace, "-input-tokens", "7"}, &stdout, &stderr,
			func(f Flags) (Fake, error) {
				if f.Trace == nil || f.InputTokens != 7 {
					return nil, fmt.Errorf("flags %+v", f)
				}
				return startEcho(t, f.Trace), nil
			})
	}()
	var url string
	for deadline := time.Now().Add(5 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		url = strings.TrimSpace(stdout.String())
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("printed %q (stderr %q)", url, stderr.String())
	}
	for _, p := range []string{"/b", "/c"} {
		resp, err := http.Post(url+p, "", strings.NewReader("hi"))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		time.Sleep(250 * time.Millisecond) // one tick between them
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(stderr.String(), "/c -> 200") && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if c := <-code; c != 0 || stderr.String() != "/b -> 200\n/c -> 200\n" {
		t.Errorf("exit %d, stderr %q", c, stderr.String())
	}
	if b, _ := os.ReadFile(trace); string(b) != "/b hi\n/c hi\n" {
		t.Errorf("trace %q", b)
	}

	var out, errb bytes.Buffer
	if c := Command(context.Background(), "fakeecho", []string{"-nope"}, &out, &errb, nil); c != 2 {
		t.Errorf("bad flag: exit %d", c)
	}
	errb.Reset()
	c := Command(context.Background(), "fakeecho", nil, &out, &errb,
		func(Flags) (Fake, error) { return nil, fmt.Errorf("no port") })
	if c != 2 || errb.String() != "fakeecho: no port\n" {
		t.Errorf("start error: exit %d, %q", c, errb.String())
	}
	if c := Command(context.Background(), "fakeecho", []string{"-trace", t.TempDir()}, &out, &errb, nil); c != 2 {
		t.Errorf("trace into a folder: exit %d", c)
	}
}

func TestRequestLine(t *testing.T) {
	at := time.Date(2026, 12, 1, 11, 35, 58, 496e6, time.UTC)
	for _, tc := range []struct {
		r      Request
		fields []string
		want   string
	}{
		{Request{Time: at, Method: "HEAD", Path: "/", Status: 200}, nil, "11:35:58.496 HEAD / -> 200"},
		{Request{Time: at, Method: "POST", Path: "/v1/chat/completions", Agent: "opencode/1.18.33 ai-sdk/provider-utils/4.0.23",
			Model: "fake-model", Stream: true, Tools: 11, Prompt: "say hello", Reply: "text", Status: 200},
			[]string{Field("msgs", 2), Field("json", false), "", Usage{In: 8, Cached: 4, Out: 1}.Field()},
			`11:35:58.496 POST /v1/chat/completions agent=opencode/1.18.33 model=fake-model stream=true tools=11 msgs=2 usage=in:8,cached:4,out:1 prompt="say hello" reply=text -> 200`},
	} {
		if got := tc.r.Line(tc.fields...); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	if (Usage{}).Field() != "" || Field("n", 0) != "" || Field("b", true) != "b=true" {
		t.Error("zero fields are not left out")
	}
}
