package fold

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// The table against a model (a map and a queue), with few slots so that
// probes wrap, clusters merge and removals shift entries back.
func TestSeenMatchesModel(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 64} {
		s := newSeen(n)
		model := map[string]bool{}
		var order []string
		r := rand.New(rand.NewPCG(1, uint64(n)))
		for step := 0; step < 20000; step++ {
			id := strconv.Itoa(r.IntN(3 * n))
			got, want := s.add(id), !model[id]
			if got != want {
				t.Fatalf("n=%d step %d: add(%s) = %v, want %v", n, step, id, got, want)
			}
			if want {
				model[id] = true
				order = append(order, id)
				if len(order) > n {
					delete(model, order[0])
					order = order[1:]
				}
			}
			if s.n != len(model) {
				t.Fatalf("n=%d step %d: %d ids held, want %d", n, step, s.n, len(model))
			}
		}
		for _, id := range order { // every one still found where it is
			if s.find(s.hash(id)) < 0 {
				t.Errorf("n=%d: %s lost from the table", n, id)
			}
		}
	}
}

// BenchmarkSeen adds ids as a replay does: mostly new, some again.
func BenchmarkSeen(b *testing.B) {
	ids := make([]string, 1<<16)
	for i := range ids {
		ids[i] = strconv.FormatUint(rand.Uint64(), 16)
	}
	s := newSeen(Defaults().SeenIDs)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.add(ids[i&(len(ids)-1)])
	}
}
