package event

import (
	"bytes"
	"encoding/hex"
	stdjson "encoding/json"
	"hash/fnv"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestDecodeRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // "" means the same as in
	}{
		{
			name: "minimal",
			in:   `{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"turn.start","session":"s1"}`,
		},
		{
			name: "every known member",
			in:   `{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"state","agent":"claude","session":"s1","src":"fold","id":"abc","run":"r1","pid":42,"tty":"/dev/pts/3","pane":"%12","host":"box","cwd":"/w","branch":"main","argv0":"claude","where":"background","job":"b0872257","transcript":"/t.jsonl","sub":"a1","status":"waiting","mode":"auto","attention":"permission","tool":"Bash","tool_id":"toolu_1","action":"approve","text":"echo hi","options":["Yes","No, \"not\" this"],"reason":"r","prompt":"do it","pending":2,"backend":"dbus","ref":"7","since":"2026-11-30T02:14:30.000Z","gen":3,"token":"1764468870000.3","ambiguous":true,"stale":"x","model":"claude-opus-4-8","tokens":{"in":1,"out":2,"cache_read":3,"cache_write":4},"context":{"used":5,"size":200000,"left_pct":100},"cost_usd":0.25,"limits":[{"window":"5h","used_pct":12.5,"minutes":300,"resets_at":"2026-11-30T05:00:00.000Z"}],"sig":"s1"}`,
		},
		{
			name: "unknown members kept in order, nested and all",
			in:   `{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"meter","x":{"a":[1,{"b":null}]},"session":"s","y":"z\u00e9"}`,
			want: `{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"meter","session":"s","x":{"a":[1,{"b":null}]},"y":"z\u00e9"}`,
		},
		{
			name: "time with offset and nanoseconds is normalised to UTC ms",
			in:   `{"v":1,"t":"2026-11-30T03:14:33.751999+01:00","kind":"wait","session":"s"}`,
			want: `{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"wait","session":"s"}`,
		},
		{
			name: "escapes and unicode",
			in:   `{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"turn.start","session":"s","text":"a\"b\\c\n\t\u0001 é 😀 \ud83d\ude00"}`,
			want: `{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"turn.start","session":"s","text":"a\"b\\c\n\t\u0001 é 😀 😀"}`,
		},
		{
			name: "nulls are empty",
			in:   `{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"meter","session":null,"tokens":null,"context":null,"cost_usd":null,"limits":null,"since":null}`,
			want: `{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"meter","session":""}`,
		},
		{
			name: "whitespace everywhere",
			in:   " { \"v\" : 1 ,\n\"t\":\"2026-11-30T02:14:33.751Z\" , \"kind\" : \"wait\", \"session\":\"s\" } ",
			want: `{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"wait","session":"s"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e Event
			if err := Decode([]byte(tc.in), &e); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			got := strings.TrimSuffix(string(Marshal(&e)), "\n")
			want := tc.want
			if want == "" {
				want = tc.in
			}
			if got != want {
				t.Errorf("round trip\n got %s\nwant %s", got, want)
			}
			if !stdjson.Valid([]byte(got)) {
				t.Errorf("output is not valid JSON: %s", got)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, "not a JSON object"},
		{`[]`, "not a JSON object"},
		{`{"v":1,`, "want a member name"},
		{`{"v":"1"}`, `"v": byte 5: want a number`},
		{`{"v":1.5}`, "want an integer"},
		{`{"t":"yesterday"}`, "bad time"},
		{`{"kind":"x"} trailing`, "trailing data"},
		{`{"text":"abc`, "unterminated string"},
		{"{\"text\":\"a\x01\"}", "control character"},
		{`{"x":[1,2}`, "want ',' or ']'"},
		{`{"x":tru}`, "want true"},
		{`{"ambiguous":1}`, `"ambiguous": byte 13: want true or false`},
		{`{"text":"\x"}`, "bad escape"},
		{strings.Repeat(`{"x":`, 300) + "1" + strings.Repeat("}", 300), "nested too deeply"},
	}
	for _, tc := range tests {
		var e Event
		err := Decode([]byte(tc.in), &e)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Decode(%.40q) = %v; want error containing %q", tc.in, err, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	ok := New(TurnStart, now, "claude", "s")
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate(%+v) = %v", ok, err)
	}
	for _, bad := range []Event{{V: 2, T: At(now), Kind: "x"}, {V: 1, T: At(now)}, {V: 1, Kind: "x"}} {
		if bad.Validate() == nil {
			t.Errorf("Validate(%+v) = nil; want an error", bad)
		}
	}
}

// TestMakeIDIsFNV128a: the inline hash is hash/fnv's, so ids stay what
// earlier versions wrote (a spool replayed across an upgrade folds once).
func TestMakeIDIsFNV128a(t *testing.T) {
	for _, parts := range [][]string{{}, {""}, {"hook", "s-1", "turn.start"}, {strings.Repeat("é\x00x", 300)}} {
		h := fnv.New128a()
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
		if want := hex.EncodeToString(h.Sum(nil)[:10]); MakeID(parts...) != want {
			t.Errorf("MakeID(%q) = %s, hash/fnv says %s", parts, MakeID(parts...), want)
		}
	}
}

// TestIDPrefix: an id made from a prefix is MakeID's of all the parts.
func TestIDPrefix(t *testing.T) {
	for _, c := range []struct{ pre, rest []string }{
		{nil, nil}, {[]string{"log"}, nil}, {nil, []string{"a"}},
		{[]string{"log", "s-1"}, []string{"tool.start", "toolu_1"}},
		{[]string{""}, []string{"", ""}},
	} {
		want := MakeID(append(append([]string{}, c.pre...), c.rest...)...)
		if got := NewIDPrefix(c.pre...).Make(c.rest...); got != want {
			t.Errorf("NewIDPrefix(%q).Make(%q) = %s, MakeID says %s", c.pre, c.rest, got, want)
		}
	}
}

func TestMakeIDStable(t *testing.T) {
	a, b := MakeID("hook", "s", "x"), MakeID("hook", "s", "x")
	if a != b || len(a) != 20 {
		t.Errorf("MakeID not stable or wrong length: %q %q", a, b)
	}
	if MakeID("ab", "c") == MakeID("a", "bc") {
		t.Error("MakeID must separate its parts")
	}
	for _, s := range []string{"", "x", `{"session_id":"s"}`} {
		if MakeIDBytes([]byte(s)) != MakeID(s) {
			t.Errorf("MakeIDBytes(%q) != MakeID(%q)", s, s)
		}
	}
}

// FuzzDecode checks the codec never panics, that what it writes is valid
// JSON, and that decoding its own output gives the same event back.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"turn.start","session":"s1"}`,
		`{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"meter","x":{"a":[1,{"b":null}]},"tokens":{"in":1},"limits":[{"window":"5h","used_pct":1.5}]}`,
		`{"text":"\ud83d\ude00 \u00e9 \n","cost_usd":1e3,"gen":-1}`,
		`{"v":1,"context":{"used":1,"size":2,"left_pct":3},"since":"2026-01-01T00:00:00Z"}`,
		`{"session":"a\b","cwd":"/w","transcript":"t\"","run":"\u0001","branch":"/w"}`,
		`{"session":"a\\b","cwd":"/w\"","transcript":"t\"","run":"\u0001","model":"m"}`,
	} {
		f.Add([]byte(s))
	}
	// Lines of one stream, for the Decoder's memory of the last values.
	f.Add([]byte(`{"session":"s1","cwd":"/w","transcript":"/t/a.jsonl"}` + "\n" + `{"session":"s1","cwd":"/w\"x","transcript":"/t/a.jsonl"}` + "\n" + `{"session":"s1\u0041","cwd":"/w","transcript":"/t/a.jsonlx"}`))
	f.Add([]byte(`{"cwd":"/w\u00e9"}` + "\n" + `{"cwd":"/wé"}` + "\n" + `{"cwd":"/w"}` + "\n" + `{"cwd":"/w"`))
	f.Fuzz(func(t *testing.T, in []byte) {
		// Line by line through one Decoder, each as it decodes alone;
		// and through one Encoder, each as Marshal writes it.
		var dec Decoder
		var enc Encoder
		var es Event
		for _, line := range bytes.Split(in, []byte("\n")) {
			var alone Event
			errAlone, err := Decode(line, &alone), dec.Decode(line, &es)
			if (err == nil) != (errAlone == nil) || err == nil && string(Marshal(&es)) != string(Marshal(&alone)) {
				t.Fatalf("in a stream %s decodes as %s (%v), alone as %s (%v)", line, Marshal(&es), err, Marshal(&alone), errAlone)
			}
			if got := enc.Append(nil, &alone); string(got) != string(Marshal(&alone)) {
				t.Fatalf("in a stream %s encodes as %s, alone as %s", line, got, Marshal(&alone))
			}
		}
		var e Event
		if Decode(in, &e) != nil {
			return
		}
		// Decoded after another event into the same e (whose strings it
		// may keep), the same event.
		for _, before := range []string{`{"session":"a\\b","cwd":"/w","transcript":"t\"","run":"\u0001"}`, string(in)} {
			var e3 Event
			Decode([]byte(before), &e3)
			if err := Decode(in, &e3); err != nil || string(Marshal(&e3)) != string(Marshal(&e)) {
				t.Fatalf("after %s, %s decodes as %s, alone as %s (%v)", before, in, Marshal(&e3), Marshal(&e), err)
			}
		}
		out := Marshal(&e)
		if !stdjson.Valid(out) {
			t.Fatalf("Marshal wrote invalid JSON %q from %q", out, in)
		}
		var e2 Event
		if err := Decode(out, &e2); err != nil {
			t.Fatalf("Decode(Marshal(e)) = %v for %q", err, out)
		}
		out2 := Marshal(&e2)
		if string(out) != string(out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
		// The standard library must agree on the known string members.
		var m map[string]any
		if err := stdjson.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		if got, _ := m["text"].(string); got != e.Text {
			t.Fatalf("text: encoding/json says %q, we say %q", got, e.Text)
		}
		if !reflect.DeepEqual(e.Tokens, e2.Tokens) {
			t.Fatalf("tokens differ after round trip")
		}
	})
}

var benchLine = []byte(`{"v":1,"t":"2026-11-30T02:14:33.751Z","kind":"tool.start","agent":"claude","session":"5f24aaaa-bbbb-cccc-dddd-eeeeffff0000","src":"hook","id":"abcdef0123456789abcd","run":"3630aaaa-bbbb","pid":12494,"tty":"/dev/pts/0","pane":"%12","cwd":"/home/u/work/proj","tool":"Bash","tool_id":"toolu_bc4a123","text":"echo marker > marker.txt"}`)

func BenchmarkDecode(b *testing.B) {
	var e Event
	b.SetBytes(int64(len(benchLine)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(benchLine, &e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecoder is BenchmarkDecode through a stream's Decoder, as
// every stage reads: the repeated members compared, not scanned.
func BenchmarkDecoder(b *testing.B) {
	var e Event
	var d Decoder
	b.SetBytes(int64(len(benchLine)))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Decode(benchLine, &e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	var e Event
	if err := Decode(benchLine, &e); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 1024)
	b.SetBytes(int64(len(benchLine)))
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendJSON(buf[:0], &e)
	}
}

// BenchmarkEncoder is BenchmarkEncode through a stream's Encoder, as
// ag-tail writes a file's events.
func BenchmarkEncoder(b *testing.B) {
	var e Event
	if err := Decode(benchLine, &e); err != nil {
		b.Fatal(err)
	}
	var enc Encoder
	buf := make([]byte, 0, 1024)
	b.SetBytes(int64(len(benchLine)))
	b.ReportAllocs()
	for b.Loop() {
		buf = enc.Append(buf[:0], &e)
	}
}

// BenchmarkStdlib is the same line through encoding/json (the Event's
// tags): the figure the hand-written codec is kept for (doc/figures.md,
// "Written by hand").
func BenchmarkStdlib(b *testing.B) {
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(benchLine)))
		b.ReportAllocs()
		for b.Loop() {
			var e Event
			if err := stdjson.Unmarshal(benchLine, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		var e Event
		if err := Decode(benchLine, &e); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(benchLine)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := stdjson.Marshal(&e); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestAppendTimeMatchesLayout(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2026, 11, 30, 2, 14, 33, 751999999, time.UTC),
		time.Date(1999, 1, 2, 3, 4, 5, 6e6, time.FixedZone("x", 3600)),
		time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, want := string(appendTime(nil, tm)), tm.UTC().Format(Layout); got != want {
			t.Errorf("appendTime(%v) = %s; want %s", tm, got, want)
		}
	}
}

// TestInterned: the table holds every kind, source, attention and status,
// each found by its hash, and nothing else.
func TestInterned(t *testing.T) {
	for _, s := range interned {
		if got, ok := intern([]byte(s)); !ok || got != s {
			t.Errorf("intern(%q) = %q, %v", s, got, ok)
		}
	}
	want := append(slices.Clone(Kinds), SrcHook, SrcLog, SrcPane, SrcProc, SrcStatusline, SrcFold, SrcNotify, SrcKeys,
		AttnPermission, AttnQuestion, AttnPlan, StatusIdle, StatusWorking, StatusWaiting, StatusDone, StatusFailed, StatusGone)
	for _, s := range want {
		if got, ok := intern([]byte(s)); !ok || got != s {
			t.Errorf("intern(%q) = %q, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "a", "zzz", "Bas", "Bashh", "wait.en"} {
		if _, ok := intern([]byte(s)); ok {
			t.Errorf("intern(%q) found", s)
		}
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-11-20T10:00:01.000Z", "2026-11-20T10:00:01Z", "2026-02-29T10:00:01.5Z", "2024-02-29T23:59:59.123456789Z",
		"2026-11-20T10:00:01.0000000000Z", "2026-11-20T10:00:01+01:00", "2026-13-01T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-20T24:00:00Z",
		"2026-11-20T10:00:60Z", "2026-11-20T10:00:01.Z", "-026-11-20T10:00:01Z", "2026-11-20t10:00:01Z",
		"0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "0400-02-29T12:00:00Z", "1969-12-31T23:59:59.999Z", "1970-01-01T00:00:00Z",
		"2000-02-29T00:00:00Z", "2100-02-28T23:59:59Z", "2100-03-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, werr := time.Parse(time.RFC3339Nano, s)
		got, gerr := ParseTime(s)
		if (werr == nil) != (gerr == nil) || !got.Equal(want) || got.Location().String() != want.Location().String() {
			t.Errorf("ParseTime(%q) = %v, %v; time.Parse: %v, %v", s, got, gerr, want, werr)
		}
	})
}

func FuzzQuoted(f *testing.F) {
	for _, s := range []string{"", "plain ascii text of some length", "tab\there", `a"b\c`, "é ü 😀", "\x00\x1f\x7f\x80\xff", "12345678\"12345678\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []byte
		want = append(want, '"')
		for i := 0; i < len(s); i++ { // byte by byte, as before PlainRun
			if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
				want = nil
				break
			}
			want = append(want, s[i])
		}
		got := appendQuoted(nil, s)
		if want != nil && string(got) != string(append(want, '"')) {
			t.Fatalf("appendQuoted(%q) = %s", s, got)
		}
		var back string
		if err := stdjson.Unmarshal(got, &back); err != nil || (utf8.ValidString(s) && back != s) {
			t.Fatalf("appendQuoted(%q) = %s reads back as %q (%v)", s, got, back, err)
		}
	})
}

// An Encoder writes every time as Marshal does, whatever came before it:
// the same second again, the next one, another zone, a year past 9999.
func TestEncoderTimes(t *testing.T) {
	var enc Encoder
	base := time.Date(2026, 11, 30, 23, 59, 59, 998e6, time.UTC)
	for _, tm := range []time.Time{
		base, base.Add(time.Millisecond), base.Add(2 * time.Millisecond), base.Add(-time.Second),
		base.In(time.FixedZone("x", -7200)), base.Add(999 * time.Millisecond),
		time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(12345, 1, 1, 0, 0, 0, 5e6, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 500e6, time.UTC), time.Date(1969, 12, 31, 23, 59, 59, 1e6, time.UTC), base,
	} {
		e := Event{V: 1, T: Time{tm}, Kind: Wait, Session: "s", Cwd: "/w"}
		if got, want := enc.Append(nil, &e), Marshal(&e); string(got) != string(want) {
			t.Errorf("%v: %s, want %s", tm, got, want)
		}
	}
}
