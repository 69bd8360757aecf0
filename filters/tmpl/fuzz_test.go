package tmpl

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"text/template"
)

// FuzzExecute runs arbitrary template text on testData (whose types have
// no methods) with both engines: tmpl must never panic, must parse what
// text/template parses, and wherever text/template runs the template
// successfully must write the same output.
func FuzzExecute(f *testing.F) {
	for _, tc := range cases {
		f.Add(tc.text, uint8(0))
	}
	f.Add(statusLine, uint8(1))
	f.Add("{{.M.nope}}{{.MS.nope}}", uint8(2))
	f.Fuzz(func(t *testing.T, text string, opt uint8) {
		option := []string{"missingkey=default", "missingkey=zero", "missingkey=error"}[opt%3]
		d := testData()
		d.Ch = nil // draining it would show: the table tests range over it

		ours := New("f").Funcs(testFuncs()).Option(option)
		ours.set.maxSteps = 20000 // bounds both engines' work: they walk alike
		var got limitWriter
		_, oursParse := ours.Parse(text)
		var oursErr error
		if oursParse == nil {
			oursErr = ours.Execute(&got, d)
		}
		if oursErr != nil {
			msg := oursErr.Error()
			if strings.Contains(msg, "internal error") {
				t.Fatalf("%q: %v", text, oursErr)
			}
			if strings.Contains(msg, errSteps) || strings.Contains(msg, "exceeded maximum template depth") {
				return // too long to run text/template on (and its depth limit is ten times ours)
			}
		}

		std := template.New("f").Funcs(testFuncs()).Option(option)
		_, stdParse := std.Parse(text)
		if (stdParse == nil) != (oursParse == nil) {
			t.Fatalf("%q: parse: text/template %v, tmpl %v", text, stdParse, oursParse)
		}
		if stdParse != nil {
			return
		}
		var want limitWriter
		stdErr, panicked := execStd(std, &want, d)
		switch {
		case panicked:
			t.Skipf("%q: text/template panicked: %v", text, stdErr)
		case stdErr != nil && oursErr == nil:
			t.Fatalf("%q (%s): text/template failed (%v), tmpl wrote %q", text, option, stdErr, got.String())
		case stdErr == nil && oursErr != nil:
			t.Fatalf("%q (%s): text/template wrote %q, tmpl failed: %v", text, option, want.String(), oursErr)
		case stdErr == nil && noAddr(want.String()) != noAddr(got.String()):
			t.Fatalf("%q (%s):\ntext/template: %q\ntmpl:          %q", text, option, want.String(), got.String())
		}
	})
}

func execStd(tm *template.Template, w *limitWriter, d any) (err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			err, panicked = panicError(r), true
		}
	}()
	return tm.Execute(w, d), false
}

// noAddr blanks out pointers, which differ when a function made the value
// ({{printf "%p" (list)}}).
var addrRE = regexp.MustCompile(`0x[0-9a-f]{6,}`)

func noAddr(s string) string { return addrRE.ReplaceAllString(s, "0xADDR") }

var errTooLong = errors.New("output too long")

// limitWriter fails past 64 KiB, which stops both engines at the same
// write.
type limitWriter struct{ strings.Builder }

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.Len()+len(p) > 64<<10 {
		return 0, errTooLong
	}
	return w.Builder.Write(p)
}
