package tmpl

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"text/template/parse"
)

// Field names: a struct field is found by its Go name (.Agent), and also
// by its JSON name (.agent, .tool_id) or its name in any case (.agent for
// a field with no tag), so a template written from the JSON a program
// prints works too. Go names win.

// FieldNamer lists the computed fields a Fielder offers, for the list of
// fields an error names.
type FieldNamer interface {
	TemplateFields() []string
}

// aliasField finds the struct field name stands for when it is not a Go
// field name: the JSON name, else the Go name in another case.
func aliasField(t reflect.Type, name string) (reflect.StructField, bool) {
	var fold reflect.StructField
	folded := false
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == name && tag != "-" {
			return f, true
		}
		if !folded && strings.EqualFold(f.Name, name) {
			fold, folded = f, true
		}
	}
	return fold, folded
}

// FieldNames lists the fields a template may use on data's type: the
// exported fields (JSON "-" ones left out) and a FieldNamer's, as ".Name".
func FieldNames(data any) []string {
	names, _ := fieldNames(reflect.ValueOf(data))
	return names
}

// fieldNames is FieldNames for v, and whether any field has a JSON name.
func fieldNames(v reflect.Value) (names []string, tagged bool) {
	if v.IsValid() && v.CanInterface() {
		if fn, ok := v.Interface().(FieldNamer); ok {
			names = append(names, fn.TemplateFields()...)
		} else if v.CanAddr() {
			if fn, ok := v.Addr().Interface().(FieldNamer); ok {
				names = append(names, fn.TemplateFields()...)
			}
		}
	}
	var t reflect.Type
	if v.IsValid() {
		t = v.Type()
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && t.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(t) {
			tag := f.Tag.Get("json")
			if f.IsExported() && !f.Anonymous && tag != "-" {
				names = append(names, f.Name)
				tagged = tagged || tag != ""
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for i, n := range names {
		names[i] = "." + n
	}
	return names, tagged
}

// CheckFields reports, before any data is there, a field of the
// template's top-level data that data's type does not have: the error a
// prompt would otherwise show only once a state exists, naming the fields
// there are. Fields inside range and with (where dot is something else)
// are left to Execute.
func (t *Template) CheckFields(data any) error {
	known := map[string]bool{}
	for _, n := range FieldNames(data) {
		known[strings.ToLower(n[1:])] = true
	}
	typ := reflect.TypeOf(data)
	for typ != nil && typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	has := func(name string) bool {
		if known[strings.ToLower(name)] {
			return true
		}
		if typ != nil && typ.Kind() == reflect.Struct {
			_, ok := aliasField(typ, name)
			return ok
		}
		return false
	}
	var bad string
	var walk func(n parse.Node, root bool)
	walk = func(n parse.Node, root bool) {
		if n == nil || bad != "" || reflect.ValueOf(n).IsNil() {
			return
		}
		switch n := n.(type) {
		case *parse.ListNode:
			for _, c := range n.Nodes {
				walk(c, root)
			}
		case *parse.ActionNode:
			walk(n.Pipe, root)
		case *parse.PipeNode:
			for _, c := range n.Cmds {
				walk(c, root)
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(a, root)
			}
		case *parse.FieldNode:
			if root && !has(n.Ident[0]) {
				bad = n.Ident[0]
			}
		case *parse.ChainNode:
			walk(n.Node, root)
		case *parse.IfNode:
			walk(n.Pipe, root)
			walk(n.List, root)
			walk(n.ElseList, root)
		case *parse.RangeNode:
			walk(n.Pipe, root)
			walk(n.List, false)
			walk(n.ElseList, root)
		case *parse.WithNode:
			walk(n.Pipe, root)
			walk(n.List, false)
			walk(n.ElseList, root)
		}
	}
	if tree := t.set.trees[t.name]; tree != nil {
		walk(tree.Root, true)
	}
	if bad != "" {
		return fieldError(bad, data)
	}
	return nil
}

func fieldError(name string, data any) error {
	return fieldErrorValue(name, reflect.ValueOf(data))
}

func fieldErrorValue(name string, v reflect.Value) error {
	names, tagged := fieldNames(v)
	msg := fmt.Sprintf("no field .%s; the fields are %s", name, strings.Join(names, " "))
	if tagged {
		msg += " (their JSON names, such as .agent, work too)"
	}
	return errors.New(msg)
}
