package alive

import (
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Hung reports whether pid, whose controlling terminal was tty (a
// /dev/pts path) when it was heard of, has lost it: the terminal's other
// end was closed (its tmux pane or window went), which hangs the terminal
// up and leaves its processes with none. A process that ignores the
// hang-up lives on with nobody to type to it: Gemini CLI lived for more
// than 30 s after its pane was killed during a question.
//
// It costs one stat(2) of tty: the terminal's node goes with its other
// end, and a node made again under the same name (a new pane) is newer
// than heard. Only then is /proc/PID/stat read, and a tty_nr of 0 decides.
func Hung(pid int, tty string, heard time.Time) bool {
	if pid <= 0 || !strings.HasPrefix(tty, "/dev/pts/") {
		return false
	}
	var st syscall.Stat_t
	if err := syscall.Stat(tty, &st); err == nil {
		if heard.IsZero() || time.Unix(st.Ctim.Unix()).Before(heard.Add(Slack)) {
			return false // the same terminal, by all signs
		}
	}
	nr, ok := ttyNr(pid)
	return ok && nr == 0
}

// ttyNr reads field 7 of /proc/PID/stat, the controlling terminal's device
// number (0: none).
func ttyNr(pid int) (int64, bool) {
	var buf [512]byte // tty_nr comes within the first 130 bytes or so
	b, ok := readStat(pid, buf[:])
	if !ok {
		return 0, false
	}
	return parseTTYNr(b)
}

// parseTTYNr reads tty_nr from a /proc/PID/stat line.
func parseTTYNr(b []byte) (int64, bool) {
	f, ok := statFields(b)
	const ttyField = 7 - 3 // statFields starts at field 3
	if !ok || len(f) <= ttyField {
		return 0, false
	}
	nr, err := strconv.ParseInt(string(f[ttyField]), 10, 64)
	return nr, err == nil
}
