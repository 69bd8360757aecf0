// Package parsertest checks a provider's transcript parser against the
// contracts of providers/provider, for the providers' tests.
package parsertest

import (
	"bytes"
	"os"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// Checkpoints checks provider.Checkpointer over data: for every line
// boundary, a parser that read up to it, checkpointed, and a fresh one
// restored from that checkpoint reading the rest, together give what one
// parser gives reading it all — as ag-tail hands it out, with a meter id
// counted once and Drain after each read (so one parser that paused at
// the same line is the reference).
func Checkpoints(t *testing.T, newParser func() provider.TranscriptParser, data []byte) {
	t.Helper()
	var lines [][]byte
	for l := range bytes.Lines(data) {
		if bytes.HasSuffix(l, []byte("\n")) {
			lines = append(lines, bytes.TrimSuffix(l, []byte("\n")))
		}
	}
	step := max(1, len(lines)/200)
	for k := 0; k <= len(lines); k += step {
		ref := newParser()
		refMeters := map[string]bool{}
		whole := run(ref, lines[:k], refMeters)
		whole = run(ref, lines[k:], refMeters, whole...)
		p := newParser()
		var got []byte
		meters := map[string]bool{}
		got = run(p, lines[:k], meters, got...)
		cp, ok := p.(provider.Checkpointer)
		if !ok {
			t.Fatalf("%T is no provider.Checkpointer", p)
		}
		b, err := cp.Checkpoint()
		if err != nil {
			t.Fatalf("line %d: Checkpoint: %v", k, err)
		}
		q := newParser()
		if err := q.(provider.Checkpointer).Restore(b); err != nil {
			t.Fatalf("line %d: Restore: %v", k, err)
		}
		got = run(q, lines[k:], meters, got...)
		if !bytes.Equal(got, whole) {
			t.Fatalf("checkpoint after line %d (%d bytes: %s):\n got %s\nwant %s", k, len(b), b, diffAt(got, whole), diffAt(whole, got))
		}
	}
	if err := newParser().(provider.Checkpointer).Restore([]byte("{not a checkpoint")); err == nil {
		t.Error("Restore took bytes that are no checkpoint")
	}
}

// CheckpointsFiles is Checkpoints over each file (one subtest a file),
// with newParser(file) the file's parser; no file at all fails.
func CheckpointsFiles(t *testing.T, newParser func(file string) provider.TranscriptParser, files ...string) {
	t.Helper()
	if len(files) == 0 {
		t.Fatal("no files to check")
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			Checkpoints(t, func() provider.TranscriptParser { return newParser(f) }, data)
		})
	}
}

// run parses lines, draining at the end, and appends the events to out;
// meters (nil: a fresh set) are the meter ids already counted.
func run(p provider.TranscriptParser, lines [][]byte, meters map[string]bool, out ...byte) []byte {
	if meters == nil {
		meters = map[string]bool{}
	}
	emit := func(e *event.Event) {
		if e.Kind == event.Meter && e.ID != "" {
			if meters[e.ID] {
				return
			}
			meters[e.ID] = true
		}
		out = event.AppendJSON(out, e)
	}
	for _, l := range lines {
		p.Parse(l, emit)
	}
	if d, ok := p.(provider.TranscriptDrainer); ok {
		d.Drain(emit)
	}
	return out
}

// diffAt is a's line where a and b first differ.
func diffAt(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	start := bytes.LastIndexByte(a[:i], '\n') + 1
	end := bytes.IndexByte(a[i:], '\n')
	if end < 0 {
		return string(a[start:])
	}
	return string(a[start : i+end])
}

// WholeCheckpoints checks provider.Checkpointer for a whole-file parser:
// versions are the file as the agent wrote it, one after another. For
// every k, a parser that read versions[:k], checkpointed, and a fresh one
// restored from that checkpoint reading the rest give what one parser
// gives reading them all — as ag-tail hands them out, a meter id counted
// once.
func WholeCheckpoints(t *testing.T, newParser func() provider.WholeFileParser, versions ...[]byte) {
	t.Helper()
	whole := func(p provider.WholeFileParser, vs [][]byte, meters map[string]bool, out []byte) []byte {
		emit := emitter(meters, &out)
		for _, v := range vs {
			p.ParseWhole(v, emit)
		}
		return out
	}
	want := whole(newParser(), versions, map[string]bool{}, nil)
	for k := 0; k <= len(versions); k++ {
		p := newParser()
		meters := map[string]bool{}
		got := whole(p, versions[:k], meters, nil)
		b, err := p.(provider.Checkpointer).Checkpoint()
		if err != nil {
			t.Fatalf("version %d: Checkpoint: %v", k, err)
		}
		q := newParser()
		if err := q.(provider.Checkpointer).Restore(b); err != nil {
			t.Fatalf("version %d: Restore: %v", k, err)
		}
		got = whole(q, versions[k:], meters, got)
		if !bytes.Equal(got, want) {
			t.Fatalf("checkpoint after version %d (%d bytes: %s):\n got %s\nwant %s", k, len(b), b, diffAt(got, want), diffAt(want, got))
		}
	}
	if err := newParser().(provider.Checkpointer).Restore([]byte("{not a checkpoint")); err == nil {
		t.Error("Restore took bytes that are no checkpoint")
	}
}

// StoreCheckpoints checks provider.Checkpointer for a store reader: world
// makes a fresh store and returns how to open a reader on it and the
// agent's writes to it, in order. For k spread over the writes, a reader that read after
// each of writes[:k], checkpointed, and a fresh one restored from that
// checkpoint reading after each of the rest give what one reader gives
// reading after every write.
func StoreCheckpoints(t *testing.T, world func(t *testing.T) (open func() provider.StoreReader, writes []func())) {
	t.Helper()
	read := func(r provider.StoreReader, meters map[string]bool, out []byte) []byte {
		t.Helper()
		if err := r.Read(emitter(meters, &out)); err != nil {
			t.Fatal(err)
		}
		return out
	}
	open, writes := world(t)
	ref := open()
	var want []byte
	meters := map[string]bool{}
	for _, w := range writes {
		w()
		want = read(ref, meters, want)
	}
	ref.Close()
	// Every cut is a fresh store: a dozen of them, evenly spread, and the
	// last.
	step := max(1, len(writes)/12)
	for k := 0; k <= len(writes); k = min(k+step, len(writes)+1) {
		if k+step > len(writes) && k < len(writes) {
			k = len(writes)
		}
		open, writes := world(t)
		r := open()
		meters := map[string]bool{}
		var got []byte
		for _, w := range writes[:k] {
			w()
			got = read(r, meters, got)
		}
		b, err := r.(provider.Checkpointer).Checkpoint()
		if err != nil {
			t.Fatalf("write %d: Checkpoint: %v", k, err)
		}
		r.Close()
		q := open()
		if err := q.(provider.Checkpointer).Restore(b); err != nil {
			t.Fatalf("write %d: Restore: %v", k, err)
		}
		if k == len(writes) {
			got = read(q, meters, got)
		}
		for _, w := range writes[k:] {
			w()
			got = read(q, meters, got)
		}
		q.Close()
		if !bytes.Equal(got, want) {
			t.Fatalf("checkpoint after write %d (%s):\n got %s\nwant %s", k, b, diffAt(got, want), diffAt(want, got))
		}
	}
	open, _ = world(t)
	if err := open().(provider.Checkpointer).Restore([]byte("{not a checkpoint")); err == nil {
		t.Error("Restore took bytes that are no checkpoint")
	}
}

// emitter appends events to out, a meter id counted once in meters.
func emitter(meters map[string]bool, out *[]byte) func(*event.Event) {
	return func(e *event.Event) {
		if e.Kind == event.Meter && e.ID != "" {
			if meters[e.ID] {
				return
			}
			meters[e.ID] = true
		}
		*out = event.AppendJSON(*out, e)
	}
}
