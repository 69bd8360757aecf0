package jsonscan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestMembers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // key=value;… or the error's start
	}{
		{`{}`, ""},
		{` {"a":1, "b" : "x\n" ,"c":{"d":[1,2]}} `, `a=1;b="x\n";c={"d":[1,2]};`},
		{`{"k\u00e9y":null}`, `kéy=null;`},
		{`{"a":1,"a":2}`, `a=1;a=2;`},
		{`[1]`, "byte 0: not a JSON object"},
		{`{"a":1} x`, "byte 8: trailing data"},
		{`{"a":}`, "byte 5: want a number"},
		{`{"a" 1}`, "byte 5: want ':'"},
		{`{"a":1,}`, "byte 7: want a member name"},
		{`{"a":tru}`, "byte 5: want true"},
		{`{"a":"\x"}`, "byte 6: bad escape"},
		{"{\"a\":\"\x01\"}", "byte 6: control character"},
		{`{"a":"open`, "byte 10: unexpected end of input: unterminated string"},
		{`{"a":01}`, "byte 6: want ',' or '}'"},
		{strings.Repeat(`{"a":`, 300) + "1" + strings.Repeat("}", 300), "byte 1000: nested too deeply"},
	} {
		var got strings.Builder
		err := Members([]byte(tc.in), func(k string, v []byte) error {
			got.WriteString(k + "=" + string(v) + ";")
			return nil
		})
		if err != nil {
			if !strings.HasPrefix(err.Error(), tc.want) || tc.want == "" {
				t.Errorf("Members(%.40q): error %q, want %q", tc.in, err, tc.want)
			}
			continue
		}
		if got.String() != tc.want {
			t.Errorf("Members(%.40q) = %q, want %q", tc.in, got.String(), tc.want)
		}
	}
}

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		`"plain"`:                   "plain",
		`"esc\t\u00e9\ud83d\ude00"`: "esc\té😀",
		`"\ud800"`:                  "\uFFFD",
		"\"bad \xff byte\"":         "bad \uFFFD byte",
		`null`:                      "",
		``:                          "",
		` 42 `:                      "42",
		`{ "a" : [ 1 , "b c" ] }`:   `{"a":[1,"b c"]}`,
		`true`:                      "true",
	} {
		if got := Text([]byte(in)); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestElements(t *testing.T) {
	var got []string
	if err := Elements([]byte(` [1, "a", {"b":2}, null] `), func(v []byte) error {
		got = append(got, string(v))
		return nil
	}); err != nil || strings.Join(got, "|") != `1|"a"|{"b":2}|null` {
		t.Errorf("Elements = %q, %v", got, err)
	}
	if err := Elements([]byte(`null`), func([]byte) error { t.Error("called for null"); return nil }); err != nil {
		t.Error(err)
	}
	if err := Elements([]byte(`{"a":1}`), func([]byte) error { return nil }); err == nil {
		t.Error("an object is not an array")
	}
}

func TestIsTrue(t *testing.T) {
	for in, want := range map[string]bool{"true": true, " true": true, "false": false, `"true"`: false, "": false} {
		if IsTrue([]byte(in)) != want {
			t.Errorf("IsTrue(%q) != %v", in, want)
		}
	}
}

// FuzzScanner holds the scanner to encoding/json: the same texts are
// valid, strings decode alike and Compact agrees with json.Compact.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e3,true,false,null,"x\u00e9\n"]}`, `"\ud83d\ude00"`, `0`, `-`, `[1,]`, `{"a" :1 }`, "\"\xff\"", `1e`, `[[[]]]`, ` { } `, `-0`, `123456789012345678`, `1234567890123456789`, `-9223372036854775808`, `9223372036854775808`, `1.5`, `2e3`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := Scanner{B: in}
		s.Space()
		err := s.Skip()
		s.Space()
		if se, ok := err.(*SyntaxError); ok && strings.Contains(se.Msg, "nested too deeply") {
			return // encoding/json allows deeper nesting
		}
		ok := err == nil && s.I == len(in)
		if ok != json.Valid(in) {
			t.Fatalf("%q: scanner says valid=%v (%v), encoding/json %v", in, ok, err, json.Valid(in))
		}
		if !ok {
			return
		}
		var want bytes.Buffer
		json.Compact(&want, in)
		if got := Compact(nil, in); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("Compact(%q) = %q, want %q", in, got, want.Bytes())
		}
		var num json.Number
		if trimmed := bytes.TrimSpace(in); json.Unmarshal(in, &num) == nil && trimmed[0] != '"' && trimmed[0] != 'n' {
			// Int: what strconv reads, or a float with no fraction.
			is := Scanner{B: trimmed}
			got, gerr := is.Int()
			want, werr := strconv.ParseInt(num.String(), 10, 64)
			if werr != nil {
				f, ferr := strconv.ParseFloat(num.String(), 64)
				want, werr = int64(f), ferr
				if ferr == nil && f != float64(int64(f)) {
					werr = strconv.ErrSyntax
				}
			}
			if (gerr == nil) != (werr == nil) || gerr == nil && got != want {
				t.Fatalf("Int(%q) = %d, %v; strconv: %d, %v", in, got, gerr, want, werr)
			}
		}
		var str string
		if json.Unmarshal(in, &str) == nil {
			if got := Text(in); got != str {
				t.Fatalf("Text(%q) = %q, encoding/json %q", in, got, str)
			}
		}
	})
}

// FuzzPlainRun holds the word-at-a-time scan to a byte-at-a-time one, from
// every offset, on bytes and on strings.
func FuzzPlainRun(f *testing.F) {
	for _, s := range []string{"", "plain", "0123456789abcdef\"", "abcdefg\x1f", "tab\there", "\x7f\x80é", `12345678\`, "\xff1234567"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for i := 0; i <= len(in); i++ {
			want := i
			for want < len(in) && in[want] >= 0x20 && in[want] < 0x80 && in[want] != '"' && in[want] != '\\' {
				want++
			}
			if got := PlainRun(in, i); got != want {
				t.Fatalf("PlainRun(%q, %d) = %d, want %d", in, i, got, want)
			}
			if got := PlainRun(string(in), i); got != want {
				t.Fatalf("PlainRun(string %q, %d) = %d, want %d", in, i, got, want)
			}
		}
	})
}

// FuzzUnquote holds Unquote to encoding/json on every string body it
// accepts.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`plain`, `a\nb\"c\\d\/e\u00e9\ud83d\ude00`, "caf\xc3\xa9 \xff", `\ud800x`, `\u`, strings.Repeat(`line\n`, 40), `\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := Unquote(raw, 0)
		var want string
		if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &want) != nil {
			return // not a string body encoding/json reads
		}
		if err != nil || got != want {
			t.Fatalf("Unquote(%q) = %q, %v; encoding/json %q", raw, got, err, want)
		}
	})
}

func BenchmarkUnquote(b *testing.B) {
	raw := []byte(strings.Repeat(`fix the parser, then run the tests again.\n`, 100))
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		Unquote(raw, 0)
	}
}
