package state

import (
	"fmt"
	"os"
	"time"

	"github.com/agwatch/ag/filters/alive"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
)

// Why a state read back is stale (event.Event.Stale).
const (
	StaleNoWriter   = "no ag-fold keeps the state file"
	StaleWriterGone = "the ag-fold that kept the state file has stopped"
)

// Judge is how a reader decides what of the state file it can still
// believe. The file is current while the ag-fold that writes it runs (a
// writer on this machine is checked by pid and start time) and has
// confirmed it within three of its checks (a stopped or frozen ag-fold
// confirms nothing). A session's process on this machine is checked too:
// gone, it is gone — what ag-fold would have said within --check. A
// session of another host is never checked against this machine's
// processes; its host's staleness is for whoever hears from that host to
// write into the state (Stale), and Mark keeps what it finds there.
type Judge struct {
	Now   time.Time
	Host  hostname.Self                       // this machine
	Alive func(pid int, heard time.Time) bool // alive.Is
}

// Here judges as of now, on this machine.
func Here() Judge {
	return Judge{Now: time.Now(), Host: hostname.Of(os.Getenv), Alive: alive.Is}
}

// confirmSlack forgives a loaded machine a late check.
const confirmSlack = time.Second

// Current reports whether f is still kept by a running ag-fold; when not,
// why says so in a few words.
func (j Judge) Current(f *File) (ok bool, why string) {
	w := f.Writer
	switch {
	case w.PID <= 0:
		return false, StaleNoWriter
	case j.local(w.Host) && !j.Alive(w.PID, w.Start):
		return false, StaleWriterGone
	case w.Check > 0 && !f.Confirmed.IsZero() && j.Now.Sub(f.Confirmed) > 3*w.Check+confirmSlack:
		return false, fmt.Sprintf("the ag-fold that keeps the state file has not confirmed it for %s",
			j.Now.Sub(f.Confirmed).Round(time.Second))
	}
	return true, ""
}

// Mark applies the judgment to f.Sessions: a session of this machine whose
// process is gone becomes gone (reason "process exited"), and when the
// file is not current every other session not gone is marked Stale.
func (j Judge) Mark(f *File) {
	current, why := j.Current(f)
	for i := range f.Sessions {
		s := &f.Sessions[i]
		if s.Status == event.StatusGone {
			continue
		}
		if s.PID > 0 && j.local(s.Host) && !j.Alive(s.PID, s.T.Time) {
			s.Status, s.Reason, s.Attention, s.Tool = event.StatusGone, "process exited", "", ""
			continue
		}
		if !current && s.Stale == "" {
			s.Stale = why
		}
	}
}

// local reports whether host names this machine ("" is: the event did not
// say, and ag-fold's own sessions are local unless they say otherwise).
func (j Judge) local(host string) bool { return j.Host.Is(host) }
