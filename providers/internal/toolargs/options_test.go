package toolargs

import (
	"slices"
	"strings"
	"testing"
)

func TestQuestionOptions(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"labels in order", `[{"question":"Colour?","options":[{"label":"Red","description":"warm"},{"label":" Green "}]}]`, []string{"Red", "Green"}},
		{"strings", `[{"question":"Colour?","options":["Red","Green"]}]`, []string{"Red", "Green"}},
		{"blank, repeated in another case, not a string", `[{"options":[{"label":"  "},{"label":"Red"},{"label":"RED"},{"label":7},{"nolabel":"x"}]}]`, []string{"Red"}},
		{"two questions: tabs", `[{"question":"a","options":["x"]},{"question":"b","options":["y"]}]`, nil},
		{"multiSelect", `[{"question":"a","multiSelect":true,"options":["x","y"]}]`, nil},
		{"multiple (OpenCode)", `[{"question":"a","multiple":true,"options":["x","y"]}]`, nil},
		{"multiSelect false", `[{"question":"a","multiSelect":false,"options":["x","y"]}]`, []string{"x", "y"}},
		{"no options", `[{"question":"Your name"}]`, nil},
		{"not an array", `{"question":"a"}`, nil},
		{"broken", `[{"options":["x"`, nil},
		{"nine at most", `[{"options":["1","2","3","4","5","6","7","8","9","10"]}]`, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := QuestionOptions([]byte(tc.in)); !slices.Equal(got, tc.want) {
				t.Errorf("QuestionOptions(%s) = %q; want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestInputOptions(t *testing.T) {
	for in, want := range map[string][]string{
		`{"options":["Blue","Green"],"question":"Which colour?"}`: {"Blue", "Green"},
		`{"question":"Which?","options":[{"label":"a"},"b"," "]}`: {"a", "b"},
		`{"question":"Your name"}`:                                nil,
		`{"options":"Blue"}`:                                      nil,
	} {
		if got := InputOptions([]byte(in)); !slices.Equal(got, want) {
			t.Errorf("InputOptions(%s) = %q; want %q", in, got, want)
		}
	}
}

func TestSchemaOptions(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"one enum", `{"properties":{"colour":{"type":"string","title":"Colour","enum":["Blue","Green"]}}}`, []string{"Blue", "Green"}},
		{"two properties: tabs", `{"properties":{"colour":{"enum":["Blue"]},"size":{"enum":["Small"]}}}`, nil},
		{"a text field", `{"properties":{"name":{"type":"string","title":"Name"}}}`, nil},
		{"numbers are no labels", `{"properties":{"n":{"enum":[1,"two"]}}}`, []string{"two"}},
		{"no properties", `{"type":"object"}`, nil},
		{"broken", `{"properties":{"c":{"enum":["a"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SchemaOptions([]byte(tc.in)); !slices.Equal(got, tc.want) {
				t.Errorf("SchemaOptions(%s) = %q; want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLabelsClamped(t *testing.T) {
	got := Labels([]string{strings.Repeat("é", 400)})
	if len(got) != 1 || len(got[0]) > MaxSummary || !strings.HasSuffix(got[0], "…") {
		t.Errorf("Labels of a long label = %q", got)
	}
}

// fuzzOptions checks what every reader promises of any input.
func fuzzOptions(t *testing.T, got []string) {
	if len(got) > MaxOptions {
		t.Fatalf("%d options", len(got))
	}
	for i, l := range got {
		if strings.TrimSpace(l) != l || l == "" || len(l) > MaxSummary || seen(got[:i], l) {
			t.Fatalf("option %q of %q", l, got)
		}
	}
}

func FuzzQuestionOptions(f *testing.F) {
	f.Add(`[{"question":"Colour?","options":[{"label":"Red"},"Green"]}]`)
	f.Add(`[{"multiSelect":true,"options":["x"]}]`)
	f.Add(`[{"options":[{"label":"\u00e9\t"}]}]`)
	f.Fuzz(func(t *testing.T, in string) { fuzzOptions(t, QuestionOptions([]byte(in))) })
}

func FuzzInputOptions(f *testing.F) {
	f.Add(`{"options":["Blue","Green"],"question":"Which colour?"}`)
	f.Fuzz(func(t *testing.T, in string) { fuzzOptions(t, InputOptions([]byte(in))) })
}

func FuzzSchemaOptions(f *testing.F) {
	f.Add(`{"properties":{"colour":{"enum":["Blue","Green"]}}}`)
	f.Add(`{"properties":{"a":{"enum":["x"]},"b":{}}}`)
	f.Fuzz(func(t *testing.T, in string) { fuzzOptions(t, SchemaOptions([]byte(in))) })
}
