package jsonscan

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		in   string
		want any
		err  string
	}{
		{`{"a":[1,-2.5e3,true,false,null,"x\u00e9\n"],"b":{}}`, map[string]any{"a": []any{1.0, -2500.0, true, false, nil, "xé\n"}, "b": map[string]any{}}, ""},
		{` "s" `, "s", ""},
		{`{"k":1,"k":2}`, map[string]any{"k": 2.0}, ""},
		{`{"big":1e400,"ok":"yes"}`, map[string]any{"big": nil, "ok": "yes"}, ""},
		{`[]`, []any{}, ""},
		{`{"a":1} x`, nil, "trailing data"},
		{`{"a":}`, nil, "byte 5"},
		{``, nil, "want a number"},
		{strings.Repeat("[", 20000), nil, "nested too deeply"},
	}
	for _, tc := range tests {
		got, err := Decode([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Decode(%.40q): %v, want an error with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Decode(%q) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
}

// FuzzDecode holds Decode to encoding/json's Unmarshal into an any: the
// same value, or both refusing the input.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e3,true,false,null,"x\u00e9\n"]}`, `{"k":1,"k":{"j":[]}}`, "\"\xff\\ud800\"", `1e400`, `[1,]`, `{"a" :1 }`, `-0`, ` [ { } ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := Decode(in)
		var want any
		jerr := json.Unmarshal(in, &want)
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(jerr, &typeErr):
			return // a number past float64: Decode keeps it as nil, see TestDecode
		case err != nil && strings.Contains(err.Error(), "nested too deeply"):
			return // encoding/json allows deeper nesting
		case (err == nil) != (jerr == nil):
			t.Fatalf("%q: Decode error %v, encoding/json %v", in, err, jerr)
		case err == nil && !reflect.DeepEqual(got, want):
			t.Fatalf("%q: Decode %#v, encoding/json %#v", in, got, want)
		}
	})
}
