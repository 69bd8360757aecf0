//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	dir, failed, err := BuildBinaries()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(2)
	}
	for name := range failed {
		fmt.Fprintf(os.Stderr, "e2e: %s does not build; its tests will fail\n", name)
	}
	Bins, BuildErrors = dir, failed
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
