package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/jessevdk/go-flags"
)

// showMan is --man: the page formatted and paged when stdout is a
// terminal, as man(1) shows an installed one (troff there is noise);
// the troff itself into a file or a pipe (make man writes the pages so).
func (p Program) showMan(parser *flags.Parser) {
	var b bytes.Buffer
	p.writeMan(&b, parser)
	if f, ok := p.Stdout.(*os.File); ok && IsTerminal(f) && pageMan(b.Bytes(), p.Name, f) {
		return
	}
	p.Stdout.Write(b.Bytes())
}

// pageMan shows troff on the terminal out: through man -l (man-db, and
// mandoc's man) on a copy in a temporary folder, else nroff into $PAGER
// (less). It reports whether one of them ran.
func pageMan(troff []byte, name string, out *os.File) bool {
	dir, err := os.MkdirTemp("", "ag-man-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	page := filepath.Join(dir, name+".1")
	if err := os.WriteFile(page, troff, 0o600); err != nil {
		return false
	}
	// Once one has started, it has shown the page: how the reader left the
	// pager is no reason to show it again.
	run := func(cmd *exec.Cmd) bool {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, out, os.Stderr
		err := cmd.Run()
		_, ran := err.(*exec.ExitError)
		return err == nil || ran
	}
	if _, err := exec.LookPath("man"); err == nil && run(exec.Command("man", "-l", page)) {
		return true
	}
	pager := os.Getenv("PAGER")
	if pager == "" {
		pager = "less -R"
	}
	if _, err := exec.LookPath("nroff"); err != nil {
		return false
	}
	// The pager reads the page on its stdin, the keys from the terminal.
	return run(exec.Command("sh", "-c", "nroff -man \"$1\" | "+pager, "sh", page))
}
