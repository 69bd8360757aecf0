package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFIFORefusedAtOnce: a FIFO where a file was expected is refused at
// once, with nobody writing to it, instead of holding the open forever.
func TestFIFORefusedAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(fifo, 1<<20); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(FIFO) = %v; want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile(FIFO) blocked")
	}
	if _, err := ReadFile(t.TempDir(), 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a folder: %v", err)
	}
}

func TestReadFileBound(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("0123456789"), 0o600)
	if b, err := ReadFile(p, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	if _, err := ReadFile(p, 9); err == nil {
		t.Error("a file past the bound was read")
	}
}
