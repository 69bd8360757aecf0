package state

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"

	"github.com/agwatch/ag/filters/regfile"
	"github.com/agwatch/ag/filters/replace"
)

// Mark ties a state file to a point of ag-tail's output: ID is the last
// mark event ag-fold folded, After the keys (see Key) of every event it
// folded since. A restarted ag-tail --follow resumes from the cursor it
// saved under that mark and leaves out the events listed in After, so
// nothing is folded twice and nothing is missed. The zero Mark ties the
// file to nothing (a full replay rebuilds it).
type Mark struct {
	ID    string
	After []uint64
}

// Key names an event for Mark.After: its id, else its line (FNV-1a, 64
// bits, the same in every program and run).
func Key(id string, line []byte) uint64 {
	h := uint64(14695981039346656037)
	if id != "" {
		for i := 0; i < len(id); i++ {
			h = (h ^ uint64(id[i])) * 1099511628211
		}
		return h
	}
	for _, c := range line {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h ^ 1 // never the key of an id with the same bytes
}

// appendMark adds the mark's members to the file's first line.
func appendMark(b *bytes.Buffer, m Mark) {
	if !markID(m.ID) {
		return
	}
	b.WriteString(`,"mark":"`)
	b.WriteString(m.ID)
	b.WriteString(`","after":"`)
	var k [8]byte
	for _, a := range m.After {
		binary.BigEndian.PutUint64(k[:], a)
		var x [16]byte
		hex.Encode(x[:], k[:])
		b.Write(x[:])
	}
	b.WriteByte('"')
}

// ReadMark returns the mark a state file's contents are tied to (the zero
// Mark if none, or if it is not readable).
func ReadMark(b []byte) Mark {
	head := b
	if i := bytes.Index(b, []byte(`"sessions":[`)); i >= 0 {
		head = b[:i]
	}
	var m Mark
	i := bytes.Index(head, []byte(`"mark":"`))
	j := bytes.Index(head, []byte(`,"after":"`))
	if i < 0 || j < i {
		return Mark{}
	}
	id := head[i+len(`"mark":"`) : j]
	if len(id) < 1 || id[len(id)-1] != '"' || !markID(string(id[:len(id)-1])) {
		return Mark{}
	}
	m.ID = string(id[:len(id)-1])
	rest := head[j+len(`,"after":"`):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || end%16 != 0 {
		return Mark{}
	}
	raw := make([]byte, end/2)
	if _, err := hex.Decode(raw, rest[:end]); err != nil {
		return Mark{}
	}
	for k := 0; k < len(raw); k += 8 {
		m.After = append(m.After, binary.BigEndian.Uint64(raw[k:]))
	}
	return m
}

// markID reports whether id can be a mark's: letters, digits, '.', '-',
// '_' (written into the file as is).
func markID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Previous is where a follower starting on path keeps the file as it found
// it, when the file was tied to a mark: the new run's file starts empty,
// and a restarted ag-tail --follow that did not read it in time goes on
// from this one (any marked state file is a point it can resume from).
func Previous(path string) string { return path + ".prev" }

// KeepPrevious copies the state file at path to Previous(path) when it is
// tied to a mark; it says nothing when it cannot (a restart then replays).
func KeepPrevious(path string) {
	if b, err := regfile.ReadFile(path, maxFile); err == nil && ReadMark(b).ID != "" {
		replace.File(Previous(path), b)
	}
}

// maxFile bounds a state file ag reads whole: tens of thousands of
// sessions fit, a file written to fill the disk does not.
const maxFile = 64 << 20
