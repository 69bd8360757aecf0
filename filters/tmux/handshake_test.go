package tmux

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"
)

func TestAttachHeader(t *testing.T) {
	for _, tc := range []struct {
		v    string
		h    header
		self bool
	}{
		{"3.2", header16, true},
		{"3.3a", header16, true},
		{"3.5a", header16, true},
		{"next-3.5", header16, true},
		{"3.6", header32, true},
		{"3.6b", header32, true},
		{"next-3.6", header32, true},
		{"3.7", 0, false}, // fixed there: tmux -C
		{"next-3.7", 0, false},
		{"4.0", 0, false},
		{"3.1c", 0, false}, // no control client at all (Follows)
		{"master", 0, false},
		{"openbsd-7.6", 0, false},
		{"", 0, false},
	} {
		h, self := attachHeader(tc.v)
		if self != tc.self || self && h != tc.h {
			t.Errorf("attachHeader(%q) = %v, %v; want %v, %v", tc.v, h, self, tc.h, tc.self)
		}
	}
}

// The two layouts of a message's header, byte by byte: type, length (and
// the flag saying a descriptor comes), tmux's protocol version, the pid.
func TestMessageLayout(t *testing.T) {
	e := binary.NativeEndian
	pid := uint32(os.Getpid())
	u16 := func(v uint16) []byte { return e.AppendUint16(nil, v) }
	u32 := func(v uint32) []byte { return e.AppendUint32(nil, v) }
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name string
		got  []byte
		want []byte
	}{
		{"16, data", header16.message(nil, msgIdentifyCWD, false, []byte("/\x00")),
			join(u32(108), u16(18), u16(0), u32(8), u32(pid), []byte("/\x00"))},
		{"16, descriptor", header16.message(nil, msgIdentifyStdin, true),
			join(u32(104), u16(16), u16(1), u32(8), u32(pid))},
		{"32, data", header32.message(nil, msgCommand, false, u32(1), []byte("ls\x00")),
			join(u32(200), u32(23), u32(8), u32(pid), u32(1), []byte("ls\x00"))},
		{"32, descriptor", header32.message(nil, msgIdentifyStdout, true),
			join(u32(110), u32(16|1<<31), u32(8), u32(pid))},
	} {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("%s:\n got % x\nwant % x", tc.name, tc.got, tc.want)
		}
	}
}

func TestNext(t *testing.T) {
	for _, h := range []header{header16, header32} {
		b := h.message(nil, msgExit, false, []byte{0, 0, 0, 0}, []byte("detached\x00"))
		b = h.message(b, msgShutdown, true)
		typ, data, rest, ok, bad := h.next(b[:10])
		if ok || bad || len(rest) != 10 {
			t.Errorf("header %v, a part of a header: %v %q %v %v", h, typ, data, ok, bad)
		}
		typ, data, rest, ok, _ = h.next(b)
		if !ok || typ != msgExit || exitMessage(data) != "detached" {
			t.Errorf("header %v: first %v %q %v", h, typ, data, ok)
		}
		if typ, _, rest, ok, _ = h.next(rest); !ok || typ != msgShutdown || len(rest) != 0 {
			t.Errorf("header %v: second %v %v, %d left", h, typ, ok, len(rest))
		}
		short := h.message(nil, msgExit, false)
		short[4] = 3 // a length shorter than a header
		if _, _, _, ok, bad := h.next(short); ok || !bad {
			t.Errorf("header %v: a length of 3 taken", h)
		}
	}
}

// FuzzNext: whatever a socket says, the split neither panics nor reads
// past what came, and every message made is read back as it was.
func FuzzNext(f *testing.F) {
	f.Add([]byte{}, uint32(203), []byte("x\x00"))
	f.Add(header16.message(nil, msgExit, false, []byte{1, 0, 0, 0}), uint32(210), []byte{})
	f.Add(header32.message(nil, msgWriteOpen, true, make([]byte, 12)), uint32(12), []byte{0xff})
	f.Fuzz(func(t *testing.T, junk []byte, typ uint32, data []byte) {
		if len(data) > 1000 {
			data = data[:1000]
		}
		for _, h := range []header{header16, header32} {
			for buf := junk; ; {
				_, d, rest, ok, _ := h.next(buf)
				if !ok {
					break
				}
				if len(d)+len(rest)+headerSize > len(buf) {
					t.Fatalf("read past the input")
				}
				buf = rest
			}
			m := h.message(nil, typ, len(data)%2 == 0, data)
			got, d, rest, ok, bad := h.next(m)
			if !ok || bad || got != typ || !bytes.Equal(d, data) || len(rest) != 0 {
				t.Fatalf("header %v: %d % x read back as %d % x (%v %v)", h, typ, data, got, d, ok, bad)
			}
		}
	})
}
