package antigravity

import (
	"errors"
	"maps"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/agwatch/ag/providers/internal/ckpt"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Checkpointer = (*Steps)(nil)

// runs is a set of step indexes as sorted, disjoint runs [first, last]:
// agy numbers its steps 0, 1, 2, …, so a conversation's are a run or a few
// (a refused call leaves a gap, a step written late fills one), however
// long it is.
type runs [][2]int64

// has reports whether i is in the set.
func (r runs) has(i int64) bool {
	k := sort.Search(len(r), func(k int) bool { return r[k][1] >= i })
	return k < len(r) && r[k][0] <= i
}

// add puts i, not in the set yet, into it.
func (r *runs) add(i int64) {
	rs := *r
	k := sort.Search(len(rs), func(k int) bool { return rs[k][1] >= i })
	// i is in the gap before rs[k]; neither bound overflows, since no
	// run ends before math.MinInt64 and none after math.MaxInt64 starts.
	prev := k > 0 && rs[k-1][1] == i-1
	next := k < len(rs) && rs[k][0] == i+1
	switch {
	case prev && next:
		rs[k-1][1] = rs[k][1]
		rs = slices.Delete(rs, k, k+1)
	case prev:
		rs[k-1][1] = i
	case next:
		rs[k][0] = i
	default:
		rs = slices.Insert(rs, k, [2]int64{i, i})
	}
	*r = rs
}

// What a checkpoint keeps at most: the newest runs of steps read, calls
// and results waiting for their call. A step older than all of them,
// should agy write it now, counts as read — it is long past.
const (
	runsKept      = 32
	responsesKept = 16
	earlyKept     = 16
)

// stepsState is what a Steps parser knows between lines, for
// provider.Checkpointer (a few hundred bytes; the session is the file's
// folder).
type stepsState struct {
	Model string `json:"model,omitempty"`
	// Seen is the newest runs of steps read, oldest first; the first one
	// starts at math.MinInt64 when older ones were left out.
	Seen      runs       `json:"seen,omitempty"`
	Responses []response `json:"responses,omitempty"`
	Early     []pending  `json:"early,omitempty"`
}

// response is a response's step and the tool names of its calls, which
// the steps after it answer.
type response struct {
	I     int64    `json:"i"`
	Tools []string `json:"tools"`
}

// pending is a result read before its call.
type pending struct {
	I      int64  `json:"i"`
	Status string `json:"status,omitempty"`
	T      string `json:"t"`
}

const stepsStateV = 1

// Checkpoint saves what the parser knows (provider.Checkpointer).
func (s *Steps) Checkpoint() ([]byte, error) {
	resp := slices.Sorted(maps.Keys(s.responses))
	early := slices.Sorted(maps.Keys(s.early))
	// Every step below floor is taken as read: floor is a step read, so
	// it is in a run.
	floor := int64(math.MinInt64)
	if n := len(s.seen); n > runsKept {
		floor = s.seen[n-runsKept][0]
	}
	if n := len(resp); n > responsesKept {
		floor = max(floor, resp[n-responsesKept])
	}
	if n := len(early); n > earlyKept {
		floor = max(floor, early[n-earlyKept])
	}
	st := stepsState{Model: s.model}
	for _, r := range s.seen {
		if r[1] >= floor {
			if st.Seen == nil && floor > math.MinInt64 {
				r[0] = math.MinInt64
			}
			st.Seen = append(st.Seen, r)
		}
	}
	// A step after floor answers a call of the newest response before it,
	// which may be before floor.
	from := 0
	for i, q := range resp {
		if q <= floor {
			from = i
		}
	}
	for _, q := range resp[from:] {
		st.Responses = append(st.Responses, response{q, s.responses[q]})
	}
	for _, r := range early {
		if r >= floor {
			st.Early = append(st.Early, pending{r, s.early[r].Status, s.early[r].CreatedAt})
		}
	}
	return ckpt.Encode(stepsStateV, st)
}

// Restore takes a Checkpoint back into a fresh parser.
func (s *Steps) Restore(b []byte) error {
	var st stepsState
	if err := ckpt.Decode(b, stepsStateV, &st); err != nil {
		return err
	}
	if len(st.Seen) > runsKept || len(st.Responses) > responsesKept+1 || len(st.Early) > earlyKept {
		return errors.New("antigravity: checkpoint larger than one this parser writes")
	}
	for i, r := range st.Seen {
		if r[0] > r[1] || i > 0 && st.Seen[i-1][1] >= r[0] {
			return errors.New("antigravity: checkpoint steps out of order")
		}
	}
	responses, early := map[int64][]string{}, map[int64]step{}
	for _, r := range st.Responses {
		if !st.Seen.has(r.I) || len(r.Tools) == 0 {
			return errors.New("antigravity: checkpoint with a call of a step not read")
		}
		responses[r.I] = r.Tools
	}
	for _, p := range st.Early {
		if _, err := time.Parse(time.RFC3339Nano, p.T); err != nil || !st.Seen.has(p.I) {
			return errors.New("antigravity: checkpoint with a result of a step not read")
		}
		early[p.I] = step{Index: &p.I, Status: p.Status, CreatedAt: p.T}
	}
	s.seen, s.responses, s.early, s.model = st.Seen, responses, early, st.Model
	return nil
}
