package fold

import "hash/maphash"

// seen remembers the last n event ids, so a replayed or retried event folds
// once while memory stays bounded. It keeps 64-bit hashes, not the ids: a
// collision (about one in 10^15 per pair at 8192 ids) would drop one event.
type seen struct {
	seed maphash.Seed
	ids  map[uint64]struct{}
	ring []uint64
	next int
}

func newSeen(n int) seen {
	return seen{seed: maphash.MakeSeed(), ids: make(map[uint64]struct{}, n), ring: make([]uint64, n)}
}

// add reports whether id is new, and remembers it, forgetting the oldest.
func (s *seen) add(id string) bool {
	h := maphash.String(s.seed, id) | 1 // 0 marks an empty ring slot
	if _, ok := s.ids[h]; ok {
		return false
	}
	if old := s.ring[s.next]; old != 0 {
		delete(s.ids, old)
	}
	s.ring[s.next] = h
	s.ids[h] = struct{}{}
	s.next = (s.next + 1) % len(s.ring)
	return true
}
