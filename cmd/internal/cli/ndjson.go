package cli

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"syscall"

	"github.com/agwatch/ag/filters/event"
)

// MaxLine is the longest input line read; longer lines are reported and skipped.
const MaxLine = 64 << 20

// Reader reads events one line at a time. A line that is not a valid event is
// reported on stderr as "prog: name:line: why" and skipped; Bad counts them.
type Reader struct {
	prog Program
	name string // "<stdin>" or a path, for messages
	r    *bufio.Reader
	line int
	buf  []byte
	dec  event.Decoder
	max  int // MaxLine; smaller in tests
	Bad  int
}

// NewReader reads events from r, naming it name in messages.
func (p Program) NewReader(r io.Reader, name string) *Reader {
	return &Reader{prog: p, name: name, r: bufio.NewReaderSize(r, 256<<10), max: MaxLine}
}

// Limit lowers the longest line read to n bytes, for a program whose input
// is known to be small (ag-keys' actions): a longer line is reported and
// skipped without being kept.
func (r *Reader) Limit(n int) *Reader {
	r.max = min(n, MaxLine)
	return r
}

// Next decodes the next valid event into e and returns its raw line (valid
// until the next call). It returns io.EOF at the end of input.
func (r *Reader) Next(e *event.Event) ([]byte, error) {
	for {
		line, err := r.step(e)
		if line != nil || err != nil {
			return line, err
		}
	}
}

// NextBuffered is Next over what has already been read: when no whole line
// is buffered it reads nothing and returns ok false. A follower batching a
// burst of events stops there instead of waiting for input that may not
// come (a blank or broken line, or half a line, left in the buffer would
// otherwise hold back the events before it).
func (r *Reader) NextBuffered(e *event.Event) (line []byte, ok bool, err error) {
	for r.wholeLine() {
		line, err := r.step(e)
		if line != nil || err != nil {
			return line, true, err
		}
	}
	return nil, false, nil
}

// wholeLine reports whether the buffer holds a line up to its newline.
func (r *Reader) wholeLine() bool {
	b, _ := r.r.Peek(r.r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// step reads one line: the event's line, nil for a line skipped (blank or
// reported as broken), or the read error.
func (r *Reader) step(e *event.Event) ([]byte, error) {
	line, err := r.readLine()
	if len(line) == 0 && err != nil {
		return nil, err
	}
	r.line++
	if len(line) == 0 || allSpace(line) {
		return nil, nil
	}
	if derr := r.dec.Decode(line, e); derr != nil {
		r.Bad++
		r.prog.Errorf("%s:%d: %v", r.name, r.line, derr)
		return nil, nil
	}
	if verr := e.Validate(); verr != nil {
		r.Bad++
		r.prog.Errorf("%s:%d: %v", r.name, r.line, verr)
		return nil, nil
	}
	return line, nil
}

// Line is the number of the line Next returned last.
func (r *Reader) Line() int { return r.line }

// Buffered reports whether more input is already waiting, so a follower can
// put off slow work (the state file) until the burst is over.
func (r *Reader) Buffered() bool { return r.r.Buffered() > 0 }

// readLine returns the next line without its line end: in bufio's buffer
// when it fits there (no copy: the lines of a replay are most of what
// ag-fold reads), else gathered in r.buf.
func (r *Reader) readLine() ([]byte, error) {
	chunk, err := r.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return trimEOL(chunk), err
	}
	r.buf = append(r.buf[:0], chunk...)
	tooLong := false
	for {
		chunk, err := r.r.ReadSlice('\n')
		if !tooLong {
			if len(r.buf)+len(chunk) > r.max {
				tooLong = true
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if tooLong {
			r.line++
			r.Bad++
			r.prog.Errorf("%s:%d: line longer than %d bytes, skipped", r.name, r.line, r.max)
			r.buf = r.buf[:0]
			tooLong = false
			if err != nil {
				return nil, err
			}
			return r.readLine()
		}
		return trimEOL(r.buf), err
	}
}

// trimEOL drops a line's "\n" or "\r\n".
func trimEOL(b []byte) []byte {
	n := len(b)
	if n > 0 && b[n-1] == '\n' {
		n--
		if n > 0 && b[n-1] == '\r' {
			n--
		}
	}
	return b[:n]
}

func allSpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// Writer writes events to stdout: one Write per event, so a reader on the
// other end of a pipe never sees half a line, and nothing is held back.
type Writer struct {
	w      io.Writer
	buf    []byte
	Closed bool // the reader went away (EPIPE); stop quietly
}

// NewWriter writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Event writes e as one line.
func (w *Writer) Event(e *event.Event) error {
	w.buf = event.AppendJSON(w.buf[:0], e)
	return w.Raw(w.buf)
}

// Raw writes one already-encoded line (with its newline).
func (w *Writer) Raw(line []byte) error {
	if w.Closed {
		return ErrClosed
	}
	if _, err := w.w.Write(line); err != nil {
		if IsClosedPipe(err) {
			w.Closed = true
			return ErrClosed
		}
		return err
	}
	return nil
}

// ErrClosed means stdout's reader has gone; a filter then ends quietly.
var ErrClosed = errors.New("output closed")

// IsClosedPipe reports whether err is a write to a pipe nobody reads.
func IsClosedPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, ErrClosed)
}
