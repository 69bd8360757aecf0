//go:build linux || darwin

package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// numbered is n lines of about width bytes, each naming its number.
func numbered(n, width int) string {
	var b strings.Builder
	for i := range n {
		l := fmt.Sprintf("line %d ", i)
		b.WriteString(l + strings.Repeat("x", max(0, width-len(l))) + "\n")
	}
	return b.String()
}

// mappedFile writes body to a file and opens it as a source read by a
// counter, with a sink to read it into.
func mappedFile(t *testing.T, f *fixture, body string) (*sink, *source, *counter) {
	p := f.write(f.home+"/x.log", body)
	tl := newTail(&f.stdout, &f.stderr, f.env, time.Now)
	k, err := tl.newSink(tl.commit)
	if err != nil {
		t.Fatal(err)
	}
	c := &counter{}
	s := &source{path: p, parser: c}
	if err := s.open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	return k, s, c
}

// TestMappedLikeRead: a file of several windows, its last line without
// its newline yet, read through mappings gives every complete line once,
// in order, and the last when its newline comes.
func TestMappedLikeRead(t *testing.T) {
	f := newFixture(t)
	body := numbered(3*window/1000+7, 1000) // lines across window ends
	k, s, c := mappedFile(t, f, body+"partial")
	if err := k.read(s); err != nil {
		t.Fatal(err)
	}
	want := strings.Count(body, "\n")
	if c.n != want || s.off != int64(len(body)) || string(s.buf) != "partial" {
		t.Fatalf("read %d lines to %d, held %q; want %d lines to %d", c.n, s.off, s.buf, want, len(body))
	}
	af, _ := os.OpenFile(s.path, os.O_APPEND|os.O_WRONLY, 0)
	af.WriteString(" end\n")
	af.Close()
	if err := k.read(s); err != nil {
		t.Fatal(err)
	}
	k.flush()
	k.t.buf.Flush()
	lines := strings.Split(strings.TrimSpace(f.stdout.String()), "\n")
	if c.n != want+1 || len(lines) != want+1 {
		t.Fatalf("after the newline: %d lines parsed, %d events", c.n, len(lines))
	}
	for i, l := range lines[:want] {
		var e event.Event
		if err := event.Decode([]byte(l), &e); err != nil || !strings.HasPrefix(e.Text, fmt.Sprintf("%d line %d ", i+1, i)) {
			t.Fatalf("event %d: %.40s (%v)", i, e.Text, err)
		}
	}
	if !strings.Contains(lines[want], `partial end"`) {
		t.Errorf("last event: %s", lines[want])
	}
}

// TestMappedTruncated: a file cut short while it is mapped faults on the
// pages it lost; the program goes on, having handed on the lines before
// the cut and no line twice.
func TestMappedTruncated(t *testing.T) {
	f := newFixture(t)
	body := numbered(window/100, 100)
	k, s, c := mappedFile(t, f, body)
	m, err := syscall.Mmap(int(s.f.Fd()), 0, len(body), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	cut := len(body) / 2
	if err := os.Truncate(s.path, int64(cut)); err != nil {
		t.Fatal(err)
	}
	if !k.mappedLines(s, m, m) {
		t.Fatal("no fault reading past the new end")
	}
	page := os.Getpagesize()
	kept := strings.Count(body[:(cut+page-1)/page*page], "\n") // what the last page held
	if c.n > kept || c.n < strings.Count(body[:cut], "\n") || s.off != int64(strings.Index(body, fmt.Sprintf("line %d ", c.n))) {
		t.Fatalf("%d lines to %d, cut at %d", c.n, s.off, cut)
	}
}

// TestMappedSameEvents: a history read through mappings gives the bytes
// read(2) gives, in a transcript of several windows and one under a read.
func TestMappedSameEvents(t *testing.T) {
	f := newFixture(t)
	lines, err := os.ReadFile("../../providers/claude/testdata/projects/-home-dev-src-demo/5f0c2a9e-1b7d-4e3a-9c61-2d8e4f7a0b13.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat(lines, 3*window/len(lines)+1)
	f.write(f.transcript("-w", s1), string(big))
	f.write(f.transcript("-w", s2), string(lines))
	var outs [2]string
	for i, noMap := range []bool{false, true} {
		var out, errs syncBuffer
		tl := newTail(&out, &errs, f.env, func() time.Time { return f.now })
		tl.noMap = noMap
		if code := tl.main(t.Context(), []string{"--once"}); code != 0 {
			t.Fatalf("noMap %v: exit %d: %s", noMap, code, errs.String())
		}
		outs[i] = out.String()
	}
	if n := strings.Count(outs[0], "\n"); n < 1000 || outs[0] != outs[1] {
		t.Errorf("mapped: %d events, %d bytes; read(2): %d bytes", n, len(outs[0]), len(outs[1]))
	}
}
