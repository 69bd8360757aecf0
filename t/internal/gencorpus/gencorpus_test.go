package gencorpus

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// digest hashes every file's path and bytes under dir.
func digest(t *testing.T, dir string) [32]byte {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel))
		h.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

func TestDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	sa, err := Generate(a, 3<<20, 7)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := Generate(b, 3<<20, 7)
	if err != nil {
		t.Fatal(err)
	}
	if sa != sb || digest(t, a) != digest(t, b) {
		t.Fatalf("same seed, different corpus: %+v vs %+v", sa, sb)
	}
	if sa.Bytes < 3<<20 || sa.Sessions == 0 {
		t.Fatalf("stats %+v", sa)
	}
	if sc, _ := Generate(t.TempDir(), 1<<20, 8); sc == sa {
		t.Fatal("another seed gave the same corpus")
	}
}
