package safetext

import (
	"reflect"

	"github.com/agwatch/ag/filters/event"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile: as safetexttest.Hostile (which imports this package).
var hostile = []string{
	"Bash\x1b]52;c;cHduZWQ=\a\x1b]0;TITLE\a#[fg=red]X",
	"\x9b31m\x9d0;t\x9c", "ok\u202egnp.exe", "#{pane_id} #(id) ##[x]",
	"<a href='x'>&amp;</a>", "nul\x00", "a\nb\r\tc\u2028d", "\xff\xfe", strings.Repeat("long ", 200),
}

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Bash", "Bash"},
		{"", ""},
		{"Bash\x1b]52;c;cHduZWQ=\a\x1b]0;TITLE\a#[fg=red]X", "Bash]52;c;cHduZWQ=]0;TITLE#[fg=red]X"},
		{"\u009b31mred\u009d", "31mred"},
		{"\x9b31mred", "\uFFFD31mred"}, // a lone byte: not UTF-8
		{"ok\u202egnp.exe", "okgnp.exe"},
		{"a\u2066b\u2069c\u200fd\u061ce\u200ef", "abcdef"},
		{"two\nlines\tand\rtab", "two lines and tab"},
		{"sep\u2028par\u2029nel\u0085x", "sep par nel x"},
		{"nul\x00del\x7f", "nuldel"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"⏳ emoji ✓", "⏳ emoji ✓"},
		{"zero\u200bwidth", "zero\u200bwidth"}, // invisible, but harmless to a terminal
	} {
		if got := Line(c.in, 0); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"abcdef", 0, "abcdef"},
		{"abcdef", 6, "abcdef"},
		{"abcdef", 5, "abcd…"},
		{"äöüß", 4, "äöüß"},
		{"äöüßx", 4, "äöü…"},
		{"abc", 1, "…"},
	} {
		if got := Cut(c.in, c.max); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestTextKeepsLines(t *testing.T) {
	if got, want := Text("a\x1b[1m\nb\r\tc\u202e", 0), "a[1m\nb  c"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

func TestTmux(t *testing.T) {
	if got, want := Tmux("#{pane_id} #(id) #[fg=red]\x1b", 0), "##{pane_id} ##(id) ##[fg=red]"; got != want {
		t.Errorf("Tmux = %q, want %q", got, want)
	}
}

func TestMarkup(t *testing.T) {
	if got, want := Markup(`<b>"x" & 'y'</b>`+"\x1b", 0), `&lt;b&gt;"x" &amp; 'y'&lt;/b&gt;`; got != want {
		t.Errorf("Markup = %q, want %q", got, want)
	}
}

func TestVisible(t *testing.T) {
	if got, want := Visible("a\x1b]0;t\a\u202e\xffz"), `a\x1b]0;t\x07\u202e\xffz`; got != want {
		t.Errorf("Visible = %q, want %q", got, want)
	}
	if s := "plain ✓"; Visible(s) != s {
		t.Errorf("Visible changed %q", s)
	}
}

func TestTrimInvisible(t *testing.T) {
	for _, in := range []string{"\ufeff!rm", "\u200b!rm", "\u2060!rm", "\u00ad!rm", " \u200b\u00a0\u202e!rm", "\U000e0001!rm"} {
		if got := TrimInvisible(in); got != "!rm" {
			t.Errorf("TrimInvisible(%q) = %q", in, got)
		}
	}
}

func TestCleanAllocatesNothing(t *testing.T) {
	s := "claude ⏳ Bash rm -rf build (/home/me/proj)"
	if n := testing.AllocsPerRun(100, func() { _ = Line(s, 200); _ = Tmux(s, 200) }); n != 0 {
		t.Errorf("Line and Tmux allocate %v times on clean text", n)
	}
}

// Safe is what every surface must hold to: nothing Bad, valid UTF-8.
func Safe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if Bad(r) && r != '\n' {
			return false
		}
	}
	return true
}

func FuzzSanitize(f *testing.F) {
	for _, s := range hostile {
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = max % 300
		for name, out := range map[string]string{"Line": Line(s, max), "Tmux": Tmux(s, max), "Env": Env(s, max)} {
			if !Safe(out) || strings.ContainsRune(out, '\n') {
				t.Fatalf("%s(%q) = %q: not one safe line", name, s, out)
			}
		}
		if out := Line(s, max); max > 0 && utf8.RuneCountInString(out) > max {
			t.Fatalf("Line(%q, %d) = %q: longer than asked", s, max, out)
		}
		if out := Tmux(s, 0); strings.Count(out, "#")%2 != 0 || strings.Contains(strings.ReplaceAll(out, "##", ""), "#") {
			t.Fatalf("Tmux(%q) = %q: a # tmux would read", s, out)
		}
		for name, out := range map[string]string{"Text": Text(s, max), "Markup": Markup(s, max), "Visible": Visible(s)} {
			if !Safe(out) {
				t.Fatalf("%s(%q) = %q: not safe", name, s, out)
			}
		}
		if strings.ContainsAny(Markup(s, 0), "<>") {
			t.Fatalf("Markup(%q) left a tag", s)
		}
		if Clean(s) != (Line(s, 0) == s) && !strings.ContainsAny(s, "\t\n") {
			t.Fatalf("Clean(%q) = %v disagrees with Line", s, Clean(s))
		}
	})
}

func BenchmarkLine(b *testing.B) {
	s := "claude ⏳ Bash rm -rf build (/home/me/proj)"
	for b.Loop() {
		_ = Line(s, 200)
	}
}

// TestFieldsCoversEvent: every string field of event.Event goes through
// f, so a field added later is not printed raw.
func TestFieldsCoversEvent(t *testing.T) {
	var e event.Event
	v := reflect.ValueOf(&e).Elem()
	for i := range v.NumField() {
		if v.Field(i).Kind() == reflect.String {
			v.Field(i).SetString("\x1b")
		}
	}
	e.Limits = []event.Limit{{Window: "\x1b"}}
	e.Options = []string{"\x1b"}
	c := Fields(&e, func(s string) string { return Line(s, 0) })
	cv := reflect.ValueOf(c)
	for i := range cv.NumField() {
		f := cv.Field(i)
		switch {
		case f.Kind() == reflect.String && f.String() != "":
			t.Errorf("Fields left %s = %q", cv.Type().Field(i).Name, f.String())
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			for j := range f.Len() {
				if f.Index(j).String() != "" {
					t.Errorf("Fields left %s[%d] = %q", cv.Type().Field(i).Name, j, f.Index(j).String())
				}
			}
		}
	}
	if e.Options[0] != "\x1b" {
		t.Errorf("Fields changed the original's options")
	}
	if c.Limits[0].Window != "" || e.Limits[0].Window != "\x1b" {
		t.Errorf("Fields: limits %q, original %q", c.Limits[0].Window, e.Limits[0].Window)
	}
}
