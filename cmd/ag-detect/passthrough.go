package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/agwatch/ag/cmd/internal/cli"
)

// passThrough copies the events on stdin to stdout while --watch writes
// its own: the login pipeline is ag-tail --follow | ag-detect --watch |
// ag-fold. Lines go on whole, each between two of ag-detect's events,
// never cut by one: two programs writing into one pipe ({ ag-tail &
// ag-detect; } | ag-fold) do cut lines, when the pipe is full (a replay)
// and a write is longer than the pipe's atomic size (512 bytes on macOS,
// 4 KB on Linux; ag-tail writes 64 KB at a time). What is read is not
// decoded: ag-fold judges it. A terminal on stdin is no input; input
// that ends (ag-tail --once) ends only this.
func (d *detector) passThrough(ctx context.Context, stdin io.Reader, end func(int)) {
	if stdin == nil || cli.IsTerminal(stdin) {
		return
	}
	go func() {
		if err := d.copyLines(stdin, cli.MaxLine); err != nil && ctx.Err() == nil {
			if cli.IsClosedPipe(err) {
				end(cli.ExitOK)
				return
			}
			d.prog.Errorf("%v", err)
			end(cli.ExitError)
		}
	}()
}

// copyLines copies whole lines from r, a batch at a time. A line longer
// than most (cli.MaxLine) is said and dropped, as ag-fold would drop it.
// It returns nil at the end of r, or why writing failed.
func (d *detector) copyLines(r io.Reader, most int) error {
	const size = 256 << 10
	buf := make([]byte, 0, min(size, most))
	line, skipping := 1, false
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= most {
				d.prog.Errorf("<stdin>:%d: a line longer than %d bytes, dropped", line, most)
				buf, skipping = make([]byte, 0, min(size, most)), true
			} else {
				buf = append(buf, 0)[:len(buf)] // room for more of the line
			}
		}
		n, rerr := r.Read(buf[len(buf):cap(buf)])
		read := buf[len(buf) : len(buf)+n]
		buf = buf[:len(buf)+n]
		if skipping {
			i := bytes.IndexByte(read, '\n')
			if i < 0 {
				buf = buf[:0]
				continue
			}
			buf, skipping = append(buf[:0], read[i+1:]...), false
			line++
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			line += bytes.Count(buf[:i+1], []byte{'\n'})
			if err := d.raw(buf[:i+1]); err != nil {
				return err
			}
			buf = append(buf[:0], buf[i+1:]...)
		}
		if rerr != nil {
			if len(buf) > 0 && !skipping {
				// The last line, with no newline: given one, so the next
				// event is not glued to it.
				if err := d.raw(append(buf, '\n')); err != nil {
					return err
				}
			}
			if rerr == io.EOF {
				return nil
			}
			d.prog.Errorf("<stdin>: %v", rerr)
			return nil
		}
	}
}

// raw writes lines read as they are.
func (d *detector) raw(b []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.out.Raw(b); err != nil {
		if cli.IsClosedPipe(err) {
			return err
		}
		return fmt.Errorf("writing: %w", err)
	}
	return nil
}
