package replace

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for _, data := range []string{"one", "two, longer", ""} {
		if err := File(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != data {
			t.Errorf("read %q, want %q", b, data)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
	if err := File(filepath.Join(dir, "no", "such"), nil); err == nil {
		t.Error("a file in a missing folder was written")
	}
}
