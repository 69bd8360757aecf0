package tmpl

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"
)

// The data the differential tests run templates on. None of these types
// has methods, so text/template and tmpl must agree on everything.

type inner struct {
	Name string
	N    int
	P    *int
	Tags []string
	Next *inner
}

type Embedded struct {
	E  string
	EI int
}

type limit struct {
	Window  string
	UsedPct float64
	Resets  *int
}

type named string

type data struct {
	Embedded
	*EmbeddedPtr
	Model    string
	Cost     *float64
	NilCost  *float64
	Left     *int
	NilLeft  *int
	Zero     int
	Limits   []limit
	NoLimits []limit
	PLimits  []*limit
	Inner    inner
	PInner   *inner
	NilInner *inner
	M        map[string]any
	MI       map[int]string
	MS       map[string]int
	MU       map[uint8]bool
	MF       map[float64]string
	MB       map[bool]int
	NilMap   map[string]int
	Ints     []int
	Strs     []string
	Arr      [3]int
	Bytes    []byte
	U8       uint8
	I8       int8
	U        uint
	I64      int64
	F32      float32
	F        float64
	C        complex128
	B        bool
	Any      any
	AnyInt   any
	AnySlice any
	Named    named
	Fn       func(int) string
	NilFn    func() string
	Ch       chan int
	PP       **int
	Matrix   [][]int
	Seq      iter.Seq[int]
	Seq2     iter.Seq2[string, int]
	unexp    int
}

type EmbeddedPtr struct{ EP string }

func ptr[T any](v T) *T { return &v }

func testData() *data {
	seven := 7
	pseven := &seven
	return &data{
		Embedded:    Embedded{E: "emb", EI: 3},
		EmbeddedPtr: &EmbeddedPtr{EP: "ep"},
		Model:       "Opus 4.1",
		Cost:        ptr(1.6712),
		Left:        ptr(42),
		Limits: []limit{
			{Window: "5h", UsedPct: 23.4, Resets: ptr(90)},
			{Window: "7d", UsedPct: 61.5},
		},
		PLimits:  []*limit{{Window: "1h", UsedPct: 1}, nil},
		Inner:    inner{Name: "in", N: 2, P: ptr(5), Tags: []string{"a", "b"}, Next: &inner{Name: "next"}},
		PInner:   &inner{Name: "pin", N: -1},
		M:        map[string]any{"a": 1, "b": "two", "c": nil, "d": []int{1, 2}, "e": map[string]any{"f": 3.5}, "z": false},
		MI:       map[int]string{3: "c", 1: "a", 2: "b", -1: "neg"},
		MS:       map[string]int{"x": 1, "y": 0, "w": -2},
		MU:       map[uint8]bool{2: true, 1: false},
		MF:       map[float64]string{2.5: "b", -1: "a", math.Inf(1): "inf"},
		MB:       map[bool]int{true: 1, false: 0},
		Ints:     []int{3, 1, 2},
		Strs:     []string{"x", "y"},
		Arr:      [3]int{7, 8, 9},
		Bytes:    []byte("hi"),
		U8:       200,
		I8:       -3,
		U:        7,
		I64:      1 << 40,
		F32:      1.5,
		F:        2.25,
		C:        complex(1, 2),
		B:        true,
		AnyInt:   7,
		AnySlice: []any{1, "a", nil, 2.5},
		Named:    "nm",
		Fn:       func(i int) string { return strconv.Itoa(i * 2) },
		Ch:       newChan(),
		PP:       &pseven,
		Matrix:   [][]int{{1, 2}, {3}},
		Seq:      func(yield func(int) bool) { _ = yield(1) && yield(2) && yield(3) },
		Seq2:     func(yield func(string, int) bool) { _ = yield("a", 1) && yield("b", 2) },
		unexp:    1,
	}
}

func newChan() chan int {
	ch := make(chan int, 2)
	ch <- 1
	ch <- 2
	close(ch)
	return ch
}

var errFail = errors.New("failed on purpose")

func testFuncs() map[string]any {
	return map[string]any{
		"usd": func(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 2, 64) },
		"pct": func(v float64) string { return strconv.Itoa(int(math.Round(v))) + "%" },
		"add": func(a, b int) int { return a + b },
		"i64": func(v int64) int64 { return v * 2 },
		"u":   func(v uint) uint { return v + 1 },
		"f32": func(v float32) float32 { return v / 2 },
		"fail": func(ok bool) (string, error) {
			if ok {
				return "fine", nil
			}
			return "", errFail
		},
		"boom":  func() string { panic("boom") },
		"join":  func(sep string, xs ...string) string { return strings.Join(xs, sep) },
		"deref": func(p *int) int { return *p },
		"val":   func(v int) int { return v },
		"desc":  func(v any) string { return fmt.Sprintf("%T:%v", v, v) },
		"inner": func(in inner) string { return in.Name },
		"pin":   func(in *inner) string { return in.Name },
		"list":  func(xs ...any) []any { return xs },
		"nilp":  func() *int { return nil },
		"named": func(n named) string { return string(n) + "!" },
		"two":   func(a string, b int) string { return a + strconv.Itoa(b) },
		"bytes": func(b []byte) int { return len(b) },
		"mkmap": func() map[string]int { return map[string]int{"k": 1} },
	}
}
