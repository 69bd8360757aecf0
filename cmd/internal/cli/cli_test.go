package cli

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

type testOpts struct {
	Common
	Filter
	Follow bool          `short:"f" long:"follow" description:"keep going"`
	Wait   time.Duration `long:"wait" value-name:"D" default:"1s" description:"how long"`
}

func prog(out, errw *bytes.Buffer) Program {
	return Program{Name: "ag-test", Usage: "[OPTIONS]", Short: "tests the plumbing", Stdout: out, Stderr: errw}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		done      bool
		code      int
		out, errs string
	}{
		{name: "plain", args: []string{"-f", "rest"}},
		{name: "help", args: []string{"--help"}, done: true, out: "Usage: ag-test [OPTIONS]\n"},
		{name: "version", args: []string{"--version"}, done: true, out: "ag-test "},
		{name: "man", args: []string{"--man"}, done: true, out: ".TH \"ag\\-test\" 1"},
		{name: "negative duration", args: []string{"--wait", "-1s"}, done: true, code: ExitError, errs: "ag-test: --wait -1s: a duration cannot be negative (see ag-test --help)\n"},
		{name: "unknown flag", args: []string{"--nope"}, done: true, code: ExitError, errs: "ag-test: unknown flag `nope' (see ag-test --help)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errw bytes.Buffer
			var o testOpts
			_, done, code := prog(&out, &errw).Parse(&o, tc.args)
			if done != tc.done || code != tc.code {
				t.Errorf("Parse(%q) = done %v code %d; want %v %d", tc.args, done, code, tc.done, tc.code)
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("stdout = %q; want it to contain %q", out.String(), tc.out)
			}
			if errw.String() != tc.errs {
				t.Errorf("stderr = %q; want %q", errw.String(), tc.errs)
			}
		})
	}
}

// readAll reads r's events to the end.
func readAll(t *testing.T, r *Reader) []event.Event {
	t.Helper()
	var all []event.Event
	for {
		var e event.Event
		if _, err := r.Next(&e); err == io.EOF {
			return all
		} else if err != nil {
			t.Fatal(err)
		}
		all = append(all, e)
	}
}

func TestReaderReportsAndSkips(t *testing.T) {
	in := strings.Join([]string{
		`{"v":1,"t":"2026-11-30T00:00:00.000Z","kind":"wait","session":"a"}`,
		`not json`,
		``,
		`{"v":2,"t":"2026-11-30T00:00:00.000Z","kind":"wait","session":"b"}`,
		`{"v":1,"t":"2026-11-30T00:00:01.000Z","kind":"turn.end","session":"c"}`,
		`{"v":1,"t":"2026-11-30T00:00:02.000Z","kind":"wait","session":"d"}`, // no final newline
	}, "\n")
	var out, errw bytes.Buffer
	r := prog(&out, &errw).NewReader(strings.NewReader(in), "<stdin>")
	var got []string
	for _, e := range readAll(t, r) {
		got = append(got, e.Session)
	}
	if strings.Join(got, ",") != "a,c,d" {
		t.Errorf("sessions = %v; want a,c,d", got)
	}
	want := "ag-test: <stdin>:2: byte 0: not a JSON object\nag-test: <stdin>:4: unsupported protocol version 2 (want 1)\n"
	if errw.String() != want || r.Bad != 2 {
		t.Errorf("stderr = %q (bad %d); want %q", errw.String(), r.Bad, want)
	}
}

// Lines longer than bufio's buffer are gathered, CRLF ends are dropped,
// a line past the limit is reported and skipped (twice in a row too), and
// the lines after each come through whole.
func TestReaderLongLines(t *testing.T) {
	ev := func(session, pad string) string {
		return `{"v":1,"t":"2026-11-30T00:00:00.000Z","kind":"wait","session":"` + session + `","text":"` + pad + `"}`
	}
	big := strings.Repeat("x", 300<<10)  // past the 256 KiB buffer
	huge := strings.Repeat("y", 700<<10) // past the limit set below
	in := ev("a", "") + "\r\n" + ev("b", big) + "\n" + ev("c", huge) + "\n" + ev("d", huge) + "\n" + ev("e", "") + "\n" + ev("f", big)
	var out, errw bytes.Buffer
	r := prog(&out, &errw).NewReader(strings.NewReader(in), "<stdin>")
	r.max = 600 << 10
	var got []string
	for _, e := range readAll(t, r) {
		got = append(got, e.Session+":"+strconv.Itoa(len(e.Text)))
	}
	if want := "a:0,b:307200,e:0,f:307200"; strings.Join(got, ",") != want {
		t.Errorf("sessions = %v; want %s", got, want)
	}
	want := "ag-test: <stdin>:3: line longer than 614400 bytes, skipped\nag-test: <stdin>:4: line longer than 614400 bytes, skipped\n"
	if errw.String() != want || r.Bad != 2 {
		t.Errorf("stderr = %q (bad %d); want %q", errw.String(), r.Bad, want)
	}
}

func TestWriterClosedPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr.Close()
	w := NewWriter(pw)
	e := event.New(event.Wait, event.Time{}.Time, "claude", "s")
	if err := w.Event(&e); !IsClosedPipe(err) || !w.Closed {
		t.Errorf("write to a closed pipe = %v; want ErrClosed", err)
	}
}

// TestTmuxSpellings: -S/-L, --socket/--socket-name and the unlisted
// --tmux-socket/--tmux-name all pick the server.
func TestTmuxSpellings(t *testing.T) {
	for _, args := range [][]string{
		{"-S", "/s", "-L", "n"},
		{"--socket", "/s", "--socket-name", "n"},
		{"--tmux-socket", "/s", "--tmux-name", "n"},
	} {
		var o struct {
			Common
			Tmux
		}
		p := Program{Name: "x", Stdout: io.Discard, Stderr: io.Discard}
		if _, done, _ := p.Parse(&o, args); done {
			t.Fatalf("%q: parse failed", args)
		}
		if s, n := o.Server(); s != "/s" || n != "n" {
			t.Errorf("%q: Server() = %q, %q", args, s, n)
		}
	}
}

// TestHelpLayout: --help is the synopsis, the help, the options one line
// each (names aligned, defaults said, --man and --version on one line), the
// examples, wrapped to 80 columns.
func TestHelpLayout(t *testing.T) {
	var out, errw bytes.Buffer
	p := prog(&out, &errw)
	p.Synopsis = []string{"--other"}
	p.Help = "It does things. " + strings.Repeat("More words here. ", 8)
	p.Examples = []string{"ag-test -f   # keep going"}
	var o testOpts
	if _, done, code := p.Parse(&o, []string{"--help"}); !done || code != 0 {
		t.Fatal(done, code)
	}
	want := `Usage: ag-test [OPTIONS]
       ag-test --other

It does things. More words here. More words here. More words here. More words
here. More words here. More words here. More words here. More words here.

Options:
      --where EXPR      keep only events for which jq EXPR is true
      --jq EXPR         write what jq EXPR makes of each event
  -r, --raw             with --jq: a string result as plain text (jq -r)
  -f, --follow          keep going
      --wait D          how long (1s)
      --man, --version  print the manual page; the version

Examples:
  ag-test -f   # keep going

Every rule, option and exit code: man ag-test (or ag-test --man).
`
	if out.String() != want {
		t.Errorf("--help:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestManText: the manual's markup — paragraphs filled, list items and
// indented lines kept whole — becomes troff.
func TestManText(t *testing.T) {
	got := manText("## TITLE\n\nA para-\ngraph.\n\n- one item\n  going on\n- two\n\n  kept  as is\n  .dot")
	want := ".SS TITLE\n.PP\nA para\\- graph.\n.IP \\(bu 2\none item going on\n.IP \\(bu 2\ntwo\n.PP\n.RS 2\n.nf\nkept  as is\n\\&.dot\n.fi\n.RE\n"
	if got != want {
		t.Errorf("manText:\n%q\nwant\n%q", got, want)
	}
}
