package spool

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

func TestAppendCreatesPrivateFileAndDirs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "ag")
	path := filepath.Join(dir, "spool.ndjson")
	if err := Append(path, []byte("one\n"), DefaultMax); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, []byte("two\nthree\n"), DefaultMax); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "one\ntwo\nthree\n" {
		t.Errorf("spool holds %q", b)
	}
	for p, want := range map[string]os.FileMode{path: FileMode, dir: DirMode, filepath.Dir(dir): DirMode} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (%v)", p, fi.Mode().Perm(), want, err)
		}
	}
}

func TestAppendNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spool.ndjson")
	if err := Append(path, nil, DefaultMax); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("an empty append created the file")
	}
}

func TestAppendUnwritable(t *testing.T) {
	if os.Getuid() == 0 {
		// root writes through permissions: use a path under a regular file.
		f := filepath.Join(t.TempDir(), "file")
		os.WriteFile(f, nil, 0o600)
		if err := Append(filepath.Join(f, "ag", "spool.ndjson"), []byte("x\n"), DefaultMax); err == nil {
			t.Error("append under a regular file succeeded")
		}
		return
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o700)
	if err := Append(filepath.Join(dir, "ag", "spool.ndjson"), []byte("x\n"), DefaultMax); err == nil {
		t.Error("append into a read-only directory succeeded")
	}
}

func TestRotate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spool.ndjson")
	line := []byte("0123456789\n") // 11 bytes
	for i := 0; i < 3; i++ {
		if err := Append(path, line, 40); err != nil {
			t.Fatal(err)
		}
	}
	// 33 bytes; the next line would make 44 > 40: rotate first.
	if err := Append(path, []byte("fourth-line\n"), 40); err != nil {
		t.Fatal(err)
	}
	cur, _ := os.ReadFile(path)
	old, _ := os.ReadFile(Rotated(path))
	if string(cur) != "fourth-line\n" || string(old) != string(bytes.Repeat(line, 3)) {
		t.Errorf("after rotation: spool %q, rotated %q", cur, old)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != FileMode {
		t.Errorf("new spool mode %v", fi.Mode().Perm())
	}
	// A line larger than the limit still goes in, alone.
	big := append(bytes.Repeat([]byte("x"), 100), '\n')
	Append(path, big, 40)
	Append(path, big, 40)
	cur, _ = os.ReadFile(path)
	old, _ = os.ReadFile(Rotated(path))
	if !bytes.Equal(cur, big) || !bytes.Equal(old, big) {
		t.Errorf("oversized lines: spool %d bytes, rotated %d bytes", len(cur), len(old))
	}
}

func TestMax(t *testing.T) {
	for v, want := range map[string]int64{"": DefaultMax, "1000": 1000, "x": DefaultMax, "-5": DefaultMax, "0": DefaultMax} {
		if got := Max(func(string) string { return v }); got != want {
			t.Errorf("Max(%q) = %d, want %d", v, got, want)
		}
	}
}

// TestConcurrentRotation: many writers (each its own open file, as
// separate processes would have) with a limit small enough to rotate
// again and again. Every line that survives is whole, none twice, and
// every line written after the last rotation is in the spool.
func TestConcurrentRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spool.ndjson")
	const writers, each = 16, 50
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				line := fmt.Sprintf("{\"w\":%d,\"i\":%d,\"pad\":\"%s\"}\n", w, i, bytes.Repeat([]byte("p"), 200))
				if err := Append(path, []byte(line), 4096); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, p := range []string{Rotated(path), path} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			l := sc.Text()
			var w, i int
			if n, _ := fmt.Sscanf(l, "{\"w\":%d,\"i\":%d,", &w, &i); n != 2 || len(l) != len(fmt.Sprintf("{\"w\":%d,\"i\":%d,\"pad\":\"%s\"}", w, i, bytes.Repeat([]byte("p"), 200))) {
				t.Fatalf("%s: torn line %q", filepath.Base(p), l)
			}
			if seen[l] {
				t.Fatalf("line twice: %q", l)
			}
			seen[l] = true
		}
		f.Close()
		if fi, _ := os.Stat(p); fi.Size() > 4096 {
			t.Errorf("%s is %d bytes, past the limit", filepath.Base(p), fi.Size())
		}
	}
	if len(seen) < 2 || len(seen) >= writers*each {
		t.Errorf("%d lines kept of %d: rotation did not happen", len(seen), writers*each)
	}
}

func BenchmarkAppend(b *testing.B) {
	path := filepath.Join(b.TempDir(), "spool.ndjson")
	line := []byte(`{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"tool.start","agent":"claude","session":"` + strconv.Itoa(42) + `"}` + "\n")
	b.ReportAllocs()
	for b.Loop() {
		if err := Append(path, line, DefaultMax); err != nil {
			b.Fatal(err)
		}
	}
}
