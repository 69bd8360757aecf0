// Package state reads and writes ag-fold's state file: the current state of
// every session, so prompt segments and status lines never scan transcripts.
//
// The file is one JSON object:
//
//	{"v":1,"t":"…","writer":{"pid":…,"host":"…","start":"…","check":"2s"},"mark":"…","after":"…","sessions":[
//	<state event>,
//	…
//	]}
//
// each session a whole state event of the protocol, one per line. It is
// replaced atomically (temp file + rename), so a reader sees the old file
// or the new one. "writer" is the ag-fold that keeps it: while it runs it
// rewrites the file on every change and touches it (its modification
// time) at least every "check", so a reader can tell a file still kept
// from one left behind (see Judge).
package state

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/glance"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/filters/regfile"
	"github.com/agwatch/ag/filters/replace"
)

// Writer is the process that keeps the state file.
type Writer struct {
	PID   int
	Host  string
	Start time.Time     // when it started: a later process with its pid is not it
	Check time.Duration // it confirms the file at least this often; 0: it does not
}

// File is the state file as read.
type File struct {
	T         time.Time // when it was written
	Writer    Writer    // zero when the file names none (an older ag-fold)
	Confirmed time.Time // its modification time: last written or touched
	Sessions  []event.Event
}

// Write replaces the state file at path with states, kept by w. The
// directory must exist: a state file named by hand in a folder that is not
// there is a mistake to report, not a tree to create.
func Write(path string, now time.Time, w Writer, states []event.Event) error {
	return WriteMarked(path, now, w, states, Mark{})
}

// WriteMarked is Write with the state file tied to m.
func WriteMarked(path string, now time.Time, w Writer, states []event.Event, m Mark) error {
	lines := make([][]byte, len(states))
	for i := range states {
		lines[i] = event.AppendJSON(nil, &states[i])
	}
	return WriteLines(path, now, w, lines, m)
}

// WriteLines is WriteMarked with the states already encoded, one
// event.AppendJSON line each (a writer that keeps them between writes).
func WriteLines(path string, now time.Time, w Writer, lines [][]byte, m Mark) error {
	var b bytes.Buffer
	size := 256
	for _, l := range lines {
		size += len(l) + 1
	}
	b.Grow(size + 16*len(m.After))
	b.WriteString(`{"v":1,"t":"`)
	b.WriteString(now.UTC().Format(event.Layout))
	b.WriteByte('"')
	if w.PID > 0 {
		b.WriteString(`,"writer":{"pid":`)
		fmt.Fprint(&b, w.PID)
		if w.Host != "" {
			b.WriteString(`,"host":`)
			b.Write(event.AppendString(nil, w.Host))
		}
		if !w.Start.IsZero() {
			b.WriteString(`,"start":"` + w.Start.UTC().Format(event.Layout) + `"`)
		}
		if w.Check > 0 {
			b.WriteString(`,"check":"` + w.Check.String() + `"`)
		}
		b.WriteByte('}')
	}
	appendMark(&b, m)
	b.WriteString(`,"sessions":[`)
	for i, l := range lines {
		if i > 0 {
			b.WriteString(",\n")
		} else {
			b.WriteString("\n")
		}
		b.Write(bytes.TrimSuffix(l, []byte("\n")))
	}
	b.WriteString("\n]}\n")
	if err := replace.File(path, b.Bytes()); err != nil {
		var le *os.LinkError
		var pe *fs.PathError
		switch {
		case errors.As(err, &le):
			err = le.Err // not the temporary's name: the same failure reads the same
		case errors.As(err, &pe):
			return err // the folder is not there, or not writable: said as it is
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Touch confirms the file without rewriting it: its writer still runs and
// nothing changed. A file that is not there is no error (the next write
// makes it).
func Touch(path string, now time.Time) error {
	err := os.Chtimes(path, now, now)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// ErrNoFile means there is no state file yet (ag-fold has not run).
var ErrNoFile = errors.New("no state file")

// Load reads the state file at path as it is, judging nothing.
func Load(path string) (*File, error) {
	return load(path, nil)
}

func load(path string, needle []byte) (*File, error) {
	// A folder another user may write can hold states they forged.
	if err := paths.CheckDir(filepath.Dir(path)); err != nil {
		return nil, errors.New(paths.Refusal(err, "the state file there is not read"))
	}
	// regfile: a FIFO named as the state file would hold a prompt (and
	// any program reading it) in open(2), deaf to SIGTERM.
	fd, fi, err := regfile.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoFile
	}
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, regfile.ErrNotRegular
	}
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	b := make([]byte, fi.Size()+1) // +1: a file that grew shows as short read, not truncation
	n := 0
	for {
		m, err := fd.Read(b[n:])
		n += m
		if err != nil || m == 0 || n == len(b) {
			break
		}
	}
	f, err := parse(b[:n], needle)
	if f != nil {
		f.Confirmed = fi.ModTime()
	}
	return f, err
}

// Read returns the sessions of the state file at path as a reader on this
// machine should show them (see Judge.Mark): sessions whose process is
// gone are gone, and when no ag-fold keeps the file the others are
// marked stale.
func Read(path string) ([]event.Event, error) {
	f, err := Load(path)
	if err != nil {
		return nil, err
	}
	Here().Mark(f)
	return f.Sessions, nil
}

// ReadFor is Read for the sessions whose line holds needle (a prompt
// segment wants one pane's session, not every session of the machine
// decoded): `"pane":"%3"`.
func ReadFor(path string, needle []byte) ([]event.Event, error) {
	f, err := load(path, needle)
	if err != nil {
		return nil, err
	}
	Here().Mark(f)
	return f.Sessions, nil
}

// Parse reads a state file's contents.
func Parse(b []byte) (*File, error) { return parse(b, nil) }

var sessionsKey = []byte(`"sessions":[`)

// parse reads the header, then the sessions array, one state event per
// line, which is how Write lays it out; with needle, only the lines that
// hold it are decoded.
func parse(b []byte, needle []byte) (*File, error) {
	start := bytes.Index(b, sessionsKey)
	if start < 0 {
		return nil, fmt.Errorf("state file: no sessions array")
	}
	f := &File{}
	if err := f.header(b[:start+len(sessionsKey)]); err != nil {
		return nil, fmt.Errorf("state file: %v", err)
	}
	for n, line := range bytes.Split(b[start+len(sessionsKey):], []byte("\n")) {
		if needle != nil && !bytes.Contains(line, needle) {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSpace(line), []byte(","))
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e event.Event
		if err := event.Decode(line, &e); err != nil {
			return f, fmt.Errorf("state file: session %d: %v", n, err)
		}
		f.Sessions = append(f.Sessions, e)
	}
	return f, nil
}

// errSessions stops the header's scan where the sessions begin.
var errSessions = errors.New("sessions")

// header reads "t" and "writer" from the bytes up to the sessions array's
// opening bracket.
func (f *File) header(b []byte) error {
	b = append(append([]byte(nil), b...), "]}"...) // close the object where the array began
	s := &jsonscan.Scanner{B: b}
	s.Space()
	err := s.Object(func(key []byte) error {
		switch string(key) {
		case "sessions":
			return errSessions
		case "t":
			t, err := timeValue(s)
			f.T = t
			return err
		case "writer":
			return s.Obj(func(key []byte) error {
				var err error
				switch string(key) {
				case "pid":
					var n int64
					n, err = s.Int()
					f.Writer.PID = int(n)
				case "host":
					f.Writer.Host, err = s.Str()
				case "start":
					f.Writer.Start, err = timeValue(s)
				case "check":
					var v string
					if v, err = s.Str(); err == nil && v != "" {
						f.Writer.Check, err = time.ParseDuration(v)
					}
				default:
					err = s.Skip()
				}
				return err
			})
		}
		return s.Skip()
	})
	if errors.Is(err, errSessions) {
		return nil
	}
	if err == nil {
		return errors.New("no sessions array")
	}
	return err
}

func timeValue(s *jsonscan.Scanner) (time.Time, error) {
	v, err := s.Str()
	if err != nil || v == "" {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339Nano, v)
}

// ForPane returns the state of the session in tmux pane pane, if any; when
// several sessions name the pane, a live one wins over a gone one (an
// agent killed and started again in its pane may be found dead after the
// new one started; Claude's --fork-session leaves the forked session gone
// in the fork's pane at the fork's first moment), then the one the pane
// shows (glance.Shows: the newest, or for an agent whose process hosts
// many sessions — many says which, nil for none — the worst of them).
func ForPane(states []event.Event, pane string) (event.Event, bool) {
	return ForPaneOf(states, pane, nil)
}

// ForPaneOf is ForPane knowing which agents host many sessions a process.
func ForPaneOf(states []event.Event, pane string, many func(agent string) bool) (event.Event, bool) {
	var best event.Event
	found := false
	for _, s := range states {
		if s.Pane != pane {
			continue
		}
		gone, bestGone := s.Status == event.StatusGone, best.Status == event.StatusGone
		if !found || bestGone && !gone || gone == bestGone && glance.Shows(&s, &best, many) {
			best, found = s, true
		}
	}
	return best, found
}

// Self is this process as the state file's writer, from now on,
// confirming every check.
func Self(check time.Duration) Writer {
	return Writer{PID: os.Getpid(), Host: hostname.Of(os.Getenv).Name, Start: time.Now(), Check: check}
}

// Local keeps the states of one host (is reports whether a state's host is
// it): a merged state file holds other hosts' sessions too, whose panes
// and pids mean nothing on this one.
func Local(states []event.Event, is func(host string) bool) []event.Event {
	out := states[:0:0]
	for _, s := range states {
		if is(s.Host) {
			out = append(out, s)
		}
	}
	return out
}
