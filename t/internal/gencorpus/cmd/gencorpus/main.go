// gencorpus writes a generated Claude Code history: gencorpus DIR MB makes
// DIR/projects/… of about MB megabytes (seed 1, as the bench corpus), to
// point CLAUDE_CONFIG_DIR at. make pgo profiles ag-tail and ag-fold over
// one.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/agwatch/ag/t/internal/gencorpus"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus DIR MB")
		os.Exit(2)
	}
	mb, err := strconv.ParseInt(os.Args[2], 10, 64)
	if err != nil || mb <= 0 {
		fmt.Fprintf(os.Stderr, "gencorpus: bad size %q\n", os.Args[2])
		os.Exit(2)
	}
	st, err := gencorpus.Generate(os.Args[1], mb<<20, 1)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gencorpus: %v\n", err)
		os.Exit(2)
	}
	fmt.Printf("%s: %d bytes, %d sessions, %d sub-agent files\n", os.Args[1], st.Bytes, st.Sessions, st.Agents)
}
