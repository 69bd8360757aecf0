package evfilter

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
)

func TestFilter(t *testing.T) {
	var out bytes.Buffer
	w := cli.NewWriter(&out)
	f, err := New(cli.Filter{Where: `.status == "waiting"`, JQ: `{s: .session}`})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []string{"working", "waiting"} {
		e := event.Event{V: 1, Kind: event.State, Session: st, Status: st}
		if err := f.Write(w, &e); err != nil {
			t.Fatal(err)
		}
	}
	if out.String() != "{\"s\":\"waiting\"}\n" {
		t.Errorf("output = %q", out.String())
	}
	if _, err := New(cli.Filter{Where: ".["}); err == nil || !strings.HasPrefix(err.Error(), "--where: ") {
		t.Errorf("bad --where: err = %v", err)
	}
}
