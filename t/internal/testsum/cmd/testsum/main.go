// Command testsum is make test's reader of go test -json: a line per
// package, the output of every failed test, then the skipped tests with
// why and one closing line with the counts. Exit 1 when anything failed.
//
//	go test -json ./... | go run ./t/internal/testsum/cmd/testsum
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/t/internal/testsum"
)

func main() {
	// AG_TEST_START (Unix seconds): when make test began, vet included.
	start := time.Now()
	if sec, err := strconv.ParseInt(os.Getenv("AG_TEST_START"), 10, 64); err == nil {
		start = time.Unix(sec, 0)
	}
	s, err := testsum.Read(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(2)
	}
	if len(s.Slowest) > 0 {
		fmt.Printf("slowest packages: %s\n", strings.Join(s.Slowest, ", "))
		fmt.Printf("slowest tests: %s\n", strings.Join(s.SlowestTests, ", "))
	}
	for _, k := range s.Skips {
		fmt.Printf("skipped  %s\n", k)
	}
	fmt.Println(s.Line(time.Since(start)))
	if !s.OK() {
		os.Exit(1)
	}
}
