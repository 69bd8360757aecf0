package alive

import (
	"bytes"
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
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	var buf [512]byte
	n, err := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return 0, false
	}
	return parseTTYNr(buf[:n])
}

// parseTTYNr reads tty_nr from a /proc/PID/stat line; comm (field 2) may
// hold spaces and parens, so the fields are counted from the last ')'.
func parseTTYNr(b []byte) (int64, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	const ttyField = 7 - 3 // fields after comm start at field 3
	if len(f) <= ttyField {
		return 0, false
	}
	nr, err := strconv.ParseInt(string(f[ttyField]), 10, 64)
	return nr, err == nil
}
