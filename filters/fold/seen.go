package fold

import "hash/maphash"

// seen remembers the last n event ids, so a replayed or retried event folds
// once while memory stays bounded. It keeps 64-bit hashes, not the ids: a
// collision (about one in 10^15 per pair at 8192 ids) would drop one event.
// The hashes live in an open-addressed table (linear probing, deletion by
// backward shift) with a ring giving the order to forget them in: a Go
// map of the same hashes, rehashing each key, was an eighth of a replay's
// fold (BenchmarkSeen).
type seen struct {
	seed  maphash.Seed
	slots []uint64 // a power of two, at least twice n; 0 is empty
	ring  []uint64 // the ids in the order they came
	next  int
	n     int // ids held
}

func newSeen(n int) seen {
	size := 2
	for size < 2*n {
		size <<= 1
	}
	return seen{seed: maphash.MakeSeed(), slots: make([]uint64, size), ring: make([]uint64, n)}
}

// add reports whether id is new, and remembers it, forgetting the oldest.
func (s *seen) add(id string) bool {
	h := s.hash(id)
	if s.find(h) >= 0 {
		return false
	}
	if old := s.ring[s.next]; old != 0 {
		s.remove(old)
	}
	s.ring[s.next] = h
	s.next = (s.next + 1) % len(s.ring)
	mask := uint64(len(s.slots) - 1)
	i := h & mask
	for s.slots[i] != 0 {
		i = (i + 1) & mask
	}
	s.slots[i] = h
	s.n++
	return true
}

// hash is id's key in the table; 0 marks an empty slot, so never 0.
func (s *seen) hash(id string) uint64 { return maphash.String(s.seed, id) | 1 }

// find returns h's slot, or -1.
func (s *seen) find(h uint64) int {
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; s.slots[i] != 0; i = (i + 1) & mask {
		if s.slots[i] == h {
			return int(i)
		}
	}
	return -1
}

// remove empties h's slot and moves back the entries after it that
// probed past it, so that no lookup stops early at the hole.
func (s *seen) remove(h uint64) {
	at := s.find(h)
	if at < 0 {
		return
	}
	mask := uint64(len(s.slots) - 1)
	hole := uint64(at)
	for j := (hole + 1) & mask; s.slots[j] != 0; j = (j + 1) & mask {
		// The entry at j may fill the hole unless its home slot lies
		// cyclically after the hole (then a lookup never passes it).
		if x := s.slots[j]; (j-x&mask)&mask >= (j-hole)&mask {
			s.slots[hole] = x
			hole = j
		}
	}
	s.slots[hole] = 0
	s.n--
}
