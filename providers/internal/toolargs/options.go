package toolargs

import (
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
)

// MaxOptions bounds the options a wait carries: a picker that ag-keys
// answers by digit has nine rows at most.
const MaxOptions = 9

// Labels is what a wait's options are made of: each label trimmed and
// clamped, blank ones and a repeat of an earlier one (in any case: ag-keys
// picks the first row whose label matches) left out, at most MaxOptions.
func Labels(labels []string) []string {
	var out []string
	for _, l := range labels {
		l = event.Clamp(strings.TrimSpace(l), MaxSummary)
		if l == "" || len(out) == MaxOptions || seen(out, l) {
			continue
		}
		out = append(out, l)
	}
	return out
}

func seen(labels []string, l string) bool {
	for _, o := range labels {
		if strings.EqualFold(o, l) {
			return true
		}
	}
	return false
}

// QuestionOptions is the labels of the choices of a question tool's one
// question: questions is its JSON array of {question, options: [{label}
// or a string]} (Claude's AskUserQuestion shape, which Gemini's ask_user,
// OpenCode's question and omp's ask share). Several questions make a form
// of tabs whose rows no one label names, and a question that takes
// several answers (multiSelect, multiple) is no pick of one row: none.
func QuestionOptions(questions []byte) []string {
	var qs [][]byte
	if jsonscan.Elements(questions, func(q []byte) error { qs = append(qs, q); return nil }) != nil || len(qs) != 1 {
		return nil
	}
	var labels []string
	multi := false
	jsonscan.Members(qs[0], func(k string, v []byte) error {
		switch k {
		case "multiSelect", "multiple", "multi":
			multi = multi || strings.TrimSpace(string(v)) == "true"
		case "options":
			labels = optionLabels(v)
		}
		return nil
	})
	if multi {
		return nil
	}
	return Labels(labels)
}

// InputOptions is the choices of a question tool that asks one question
// with its options beside it ({question, options: [strings or {label}]}:
// Cline's ask_question).
func InputOptions(input []byte) []string {
	var labels []string
	jsonscan.Members(input, func(k string, v []byte) error {
		if k == "options" {
			labels = optionLabels(v)
		}
		return nil
	})
	return Labels(labels)
}

// optionLabels reads an options array: objects with a label, or strings.
func optionLabels(raw []byte) []string {
	var labels []string
	jsonscan.Elements(raw, func(o []byte) error {
		if isString(o) {
			labels = append(labels, jsonscan.Text(o))
			return nil
		}
		jsonscan.Members(o, func(k string, v []byte) error {
			if k == "label" && isString(v) {
				labels = append(labels, jsonscan.Text(v))
			}
			return nil
		})
		return nil
	})
	return labels
}

// SchemaOptions is the choices of a form asked with a JSON schema (an MCP
// elicitation's requestedSchema, Copilot's ask_user): the enum of its one
// property of type string. A form of several properties shows them as
// tabs, and a property without an enum is a text field: none.
func SchemaOptions(schema []byte) []string {
	var props [][]byte
	jsonscan.Members(schema, func(k string, v []byte) error {
		if k == "properties" {
			return jsonscan.Members(v, func(_ string, p []byte) error { props = append(props, p); return nil })
		}
		return nil
	})
	if len(props) != 1 {
		return nil
	}
	var labels []string
	jsonscan.Members(props[0], func(k string, v []byte) error {
		if k == "enum" {
			jsonscan.Elements(v, func(e []byte) error {
				if isString(e) {
					labels = append(labels, jsonscan.Text(e))
				}
				return nil
			})
		}
		return nil
	})
	return Labels(labels)
}

// isString reports whether a JSON value is a string.
func isString(raw []byte) bool {
	s := jsonscan.Scanner{B: raw}
	s.Space()
	return s.Peek() == '"'
}
