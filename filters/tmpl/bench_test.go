package tmpl

import (
	"io"
	"testing"
	"text/template"
)

// statusLine is ag-hook's default line.
const statusLine = `{{.Model}}{{with .Left}} · {{.}}% context left{{end}}{{with .Cost}} · {{usd .}}{{end}}{{range .Limits}} · {{.Window}} {{pct .UsedPct}}{{end}}`

// A hook parses its template once per process, so parse and execute
// together are what it costs.
func BenchmarkStatusLine(b *testing.B) {
	d := testData()
	b.Run("tmpl", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tm, err := New("s").Funcs(testFuncs()).Parse(statusLine)
			if err != nil {
				b.Fatal(err)
			}
			if err := tm.Execute(io.Discard, d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("text_template", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tm, err := template.New("s").Funcs(testFuncs()).Parse(statusLine)
			if err != nil {
				b.Fatal(err)
			}
			if err := tm.Execute(io.Discard, d); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Executing alone, for a template parsed once and run many times.
func BenchmarkStatusLineExecute(b *testing.B) {
	d := testData()
	b.Run("tmpl", func(b *testing.B) {
		tm := Must(New("s").Funcs(testFuncs()).Parse(statusLine))
		b.ReportAllocs()
		for b.Loop() {
			if err := tm.Execute(io.Discard, d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("text_template", func(b *testing.B) {
		tm := template.Must(template.New("s").Funcs(testFuncs()).Parse(statusLine))
		b.ReportAllocs()
		for b.Loop() {
			if err := tm.Execute(io.Discard, d); err != nil {
				b.Fatal(err)
			}
		}
	})
}
