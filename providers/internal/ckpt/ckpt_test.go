package ckpt

import "testing"

type state struct {
	A string `json:"a"`
	N int    `json:"n"`
}

func TestRoundTrip(t *testing.T) {
	b, err := Encode(3, state{"x", 2})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"v":3,"s":{"a":"x","n":2}}` {
		t.Errorf("encoded %s", b)
	}
	var got state
	if err := Decode(b, 3, &got); err != nil || got != (state{"x", 2}) {
		t.Errorf("decoded %+v, %v", got, err)
	}
}

func TestRefused(t *testing.T) {
	for _, b := range []string{``, `{not`, `{"v":2,"s":{"a":"x"}}`, `{"v":3}`, `{"v":3,"s":null}`, `{"v":3,"s":{"n":"text"}}`, `[]`} {
		got := state{"kept", 1}
		if err := Decode([]byte(b), 3, &got); err == nil {
			t.Errorf("%s: taken as %+v", b, got)
		}
	}
}
