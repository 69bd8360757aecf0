package tmux

import (
	"bytes"
	"encoding/binary"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// A control client attached by `tmux -C` can kill the whole server in
// tmux 3.2 to 3.6: the client's first message marks it a control client,
// and its last one (sent after the two that pass its stdin and stdout,
// each read on its own) gives it the state control mode writes to. A
// notification in between (a pane selected, a window renamed, a layout
// changed) is written to that state, which is not there yet: the server
// segfaults, every session with it (tmux's GitHub #4980, fixed in 3.7).
// Attaching while the user works hit it within a few attaches here.
//
// So for those versions ag speaks the client's side of the attach
// itself: its stdin and stdout first, then every other message of the
// identify, the attach command among them, in one write, which the
// server reads and handles at once: it is a control client and has its
// state in the same turn. After that the server writes to and reads from
// the pipes passed; the socket only says when the client is to end.

// Message types and client flags of tmux's protocol (tmux-protocol.h,
// tmux.h), the same from 3.2 to 3.7 (protocol version 8).
const (
	protocolVersion = 8

	msgVersion           = 12
	msgIdentifyFlags     = 100
	msgIdentifyTerm      = 101
	msgIdentifyTTYName   = 102
	msgIdentifyStdin     = 104
	msgIdentifyDone      = 106
	msgIdentifyClientPID = 107
	msgIdentifyCWD       = 108
	msgIdentifyFeatures  = 109
	msgIdentifyStdout    = 110
	msgIdentifyLongFlags = 111
	msgCommand           = 200
	msgDetach            = 201
	msgDetachKill        = 202
	msgExit              = 203
	msgExited            = 204
	msgShutdown          = 210
	msgReadOpen          = 300
	msgReadDone          = 302
	msgWriteOpen         = 303
	msgWriteReady        = 305

	clientControl = 0x2000
	clientUTF8    = 0x10000
)

// header is the layout of a message's header: tmux 3.6 took OpenBSD's
// newer imsg, whose length is 32 bits with its top bit saying a file
// descriptor comes with the message; before it, a 16-bit length and
// 16 bits of flags (1: a descriptor).
type header int

const (
	header16 header = iota // 3.2 to 3.5a
	header32               // 3.6 and later
)

const headerSize = 16

// attachHeader says whether ag attaches to tmux version v itself, and
// with which header: from 3.2 (the first with what a control client
// needs) to the last before 3.7. Other versions (3.7 and later, a build
// that names no version) are attached by a tmux -C process.
func attachHeader(v string) (header, bool) {
	ma, mi, ok := versionNumber(v)
	switch {
	case !ok || ma != 3 || mi < 2 || mi >= 7:
		return 0, false
	case mi >= 6:
		return header32, true
	}
	return header16, true
}

// versionNumber reads "3.3a", "next-3.6": 3, 3 and 3, 6.
func versionNumber(v string) (major, minor int, ok bool) {
	v = strings.TrimPrefix(v, "next-")
	ma, rest, found := strings.Cut(v, ".")
	if !found {
		return 0, 0, false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	major, err1 := strconv.Atoi(ma)
	minor, err2 := strconv.Atoi(rest[:i])
	return major, minor, err1 == nil && err2 == nil
}

// message appends one message of type typ to b.
func (h header) message(b []byte, typ uint32, fd bool, data ...[]byte) []byte {
	n := headerSize
	for _, d := range data {
		n += len(d)
	}
	e := binary.NativeEndian
	b = e.AppendUint32(b, typ)
	switch h {
	case header16:
		flags := uint16(0)
		if fd {
			flags = 1
		}
		b = e.AppendUint16(b, uint16(n))
		b = e.AppendUint16(b, flags)
	default:
		l := uint32(n)
		if fd {
			l |= 1 << 31
		}
		b = e.AppendUint32(b, l)
	}
	b = e.AppendUint32(b, protocolVersion)
	b = e.AppendUint32(b, uint32(os.Getpid()))
	for _, d := range data {
		b = append(b, d...)
	}
	return b
}

// next splits the first message off buf: its type and data, and what
// follows. ok is false while the message is not all there, and when buf
// holds no message of tmux's (bad: a length shorter than a header).
func (h header) next(buf []byte) (typ uint32, data, rest []byte, ok, bad bool) {
	if len(buf) < headerSize {
		return 0, nil, buf, false, false
	}
	e := binary.NativeEndian
	typ = e.Uint32(buf)
	var n int
	if h == header16 {
		n = int(e.Uint16(buf[4:]))
	} else {
		n = int(e.Uint32(buf[4:]) &^ (1 << 31))
	}
	switch {
	case n < headerSize:
		return 0, nil, buf, false, true
	case len(buf) < n:
		return 0, nil, buf, false, false
	}
	return typ, buf[headerSize:n], buf[n:], true, false
}

// peer is the socket of a control client ag attached itself.
type peer struct {
	conn *net.UnixConn
	h    header
	out  *os.File // our copy of the client's stdout: "%exit" is written to it
	done chan struct{}
	once sync.Once
}

// dial attaches a control client to the server at path, running args
// (attach-session …) first, as tmux -C would. It returns the client's
// stdin to write commands to and its stdout to read tmux's answers and
// notifications from. With no server listening it fails as tmux -N does,
// starting none.
func dial(path string, h header, args []string) (p *peer, in, out *os.File, err error) {
	conn, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, nil, nil, &Error{Args: args, Stderr: "no server running on " + path, Err: ErrNoServer}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		conn.Close()
		return nil, nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		conn.Close()
		inR.Close()
		inW.Close()
		return nil, nil, nil, err
	}
	fail := func(err error) (*peer, *os.File, *os.File, error) {
		conn.Close()
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, nil, nil, err
	}
	// stdin, with its descriptor; stdout, with its own, and in the same
	// write every other message: the flags that make it a control client
	// are read with the "done" that starts one.
	if _, _, err := conn.WriteMsgUnix(h.message(nil, msgIdentifyStdin, true), syscall.UnixRights(int(inR.Fd())), nil); err != nil {
		return fail(err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "/"
	}
	e := binary.NativeEndian
	flags := uint32(clientControl | clientUTF8)
	b := h.message(nil, msgIdentifyStdout, true)
	b = h.message(b, msgIdentifyFlags, false, e.AppendUint32(nil, flags))
	b = h.message(b, msgIdentifyLongFlags, false, e.AppendUint64(nil, uint64(flags)))
	b = h.message(b, msgIdentifyTerm, false, []byte{0})
	b = h.message(b, msgIdentifyFeatures, false, e.AppendUint32(nil, 0))
	b = h.message(b, msgIdentifyTTYName, false, []byte{0})
	b = h.message(b, msgIdentifyCWD, false, append([]byte(cwd), 0))
	b = h.message(b, msgIdentifyClientPID, false, e.AppendUint32(nil, uint32(os.Getpid())))
	// No environment: an attach copies the client's update-environment
	// variables into the session (-E says not to, as well).
	b = h.message(b, msgIdentifyDone, false)
	var argv []byte
	for _, a := range args {
		argv = append(append(argv, a...), 0)
	}
	b = h.message(b, msgCommand, false, e.AppendUint32(nil, uint32(len(args))), argv)
	if _, _, err := conn.WriteMsgUnix(b, syscall.UnixRights(int(outW.Fd())), nil); err != nil {
		return fail(err)
	}
	inR.Close() // the server has its own
	p = &peer{conn: conn, h: h, out: outW, done: make(chan struct{})}
	go p.run()
	return p, inW, outR, nil
}

// run reads what the server says on the socket until it says the client
// is to end (or goes), then ends the client as tmux's own does: "%exit"
// and why on its stdout, which then closes.
func (p *peer) run() {
	why := "server exited unexpectedly"
	var buf []byte
	oob := make([]byte, syscall.CmsgSpace(4*16))
	r := make([]byte, 16<<10) // tmux's largest message (MAX_IMSGSIZE)
read:
	for {
		n, oobn, _, _, err := p.conn.ReadMsgUnix(r, oob)
		closeRights(oob[:oobn]) // a descriptor sent is not ours to keep
		if n == 0 || err != nil {
			break
		}
		buf = append(buf, r[:n]...)
		for {
			typ, data, rest, ok, bad := p.h.next(buf)
			if bad {
				break read // not tmux's protocol
			}
			if !ok {
				break
			}
			buf = rest
			switch typ {
			case msgExit, msgExited:
				why = exitMessage(data)
				break read
			case msgShutdown:
				why = "server exited"
				break read
			case msgDetach, msgDetachKill:
				why = "detached"
				break read
			case msgVersion:
				why = "protocol version mismatch"
				break read
			case msgReadOpen, msgWriteOpen:
				// No file is read or written here: refused, so nothing
				// waits on it (msg_read_done, msg_write_ready: the
				// stream, then an errno).
				if len(data) >= 4 {
					reply := uint32(msgReadDone)
					if typ == msgWriteOpen {
						reply = msgWriteReady
					}
					e := binary.NativeEndian
					p.conn.Write(p.h.message(nil, reply, false, data[:4], e.AppendUint32(nil, uint32(syscall.EBADF))))
				}
			}
		}
	}
	p.end(why)
}

// end writes "%exit" and closes the client's side.
func (p *peer) end(why string) {
	p.once.Do(func() {
		line := "%exit"
		if why != "" {
			line += " " + why
		}
		p.out.WriteString(line + "\n")
		p.out.Close()
		p.conn.Close()
		close(p.done)
	})
}

// wait returns once the client has ended.
func (p *peer) wait() { <-p.done }

// exitMessage is what MSG_EXIT carries after its code: the reason, if any.
func exitMessage(data []byte) string {
	if len(data) <= 4 {
		return ""
	}
	msg, _, _ := bytes.Cut(data[4:], []byte{0})
	return string(msg)
}

// closeRights closes the descriptors a control message carries.
func closeRights(oob []byte) {
	if len(oob) == 0 {
		return
	}
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return
	}
	for _, m := range msgs {
		fds, err := syscall.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}
}
