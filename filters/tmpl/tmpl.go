// Package tmpl runs Go text/template templates without text/template.
//
// Templates are parsed by text/template/parse, so the syntax and the parse
// errors are text/template's own, and executed by a walker of ours that
// follows text/template's rules (fields, maps, variables, pipelines,
// if/with/range/break/continue, define/template/block, the builtin
// functions, truth and printing) with one exception: it never calls
// methods.
//
// That exception is the reason the package exists. text/template finds
// methods by name at run time (reflect.Value.MethodByName with a name it
// only learns from the template), and once a binary can do that the Go
// linker must keep every exported method of every type that may reach
// reflection, since any of them could be called. ag-hook, which agents
// run many times a turn, was a megabyte bigger for it (4.8 MB stripped
// against 3.8), with the page faults and start-up time that go with it.
//
// A value that wants computed fields, what a template would otherwise
// reach through methods, implements [Fielder]. The other differences from
// text/template: {{template}} calls nest at most 10000 deep (not 100000),
// a few error messages are worded differently, and the API is the part a
// program with one template needs.
package tmpl

import (
	"fmt"
	"io"
	"reflect"
	"text/template/parse"
	"unicode"
)

// FuncMap maps names to functions, as text/template.FuncMap: each function
// returns one value, or a value and an error that stops execution when it
// is not nil.
type FuncMap map[string]any

// Fielder lets a value offer computed fields, the ones a text/template
// would reach through methods: {{.Waiting}} on a value that implements
// Fielder (or whose pointer does) calls TemplateField("Waiting") first,
// and only when that reports false looks for a struct field or map key.
type Fielder interface {
	TemplateField(name string) (any, bool)
}

// Template is a parsed template and the named templates ({{define}},
// {{block}}) that came with it. Once parsed it may be executed from
// several goroutines at once.
type Template struct {
	name string
	set  *set
}

// set is what a template shares with the ones it defines.
type set struct {
	trees      map[string]*parse.Tree
	funcs      FuncMap // as given, for the parser's name check
	execFuncs  map[string]reflect.Value
	missingKey missingKey
	maxSteps   int // 0, or how many nodes one Execute may walk (for tests)
}

type missingKey int

const (
	missingInvalid missingKey = iota // <no value>
	missingZero                      // the zero of the map's element type
	missingError                     // an execution error
)

// New returns an empty template with the given name.
func New(name string) *Template {
	return &Template{name: name, set: &set{
		trees:     map[string]*parse.Tree{},
		funcs:     FuncMap{},
		execFuncs: map[string]reflect.Value{},
	}}
}

// Name is the template's name.
func (t *Template) Name() string { return t.name }

// Funcs adds the functions in m, which must come before Parse for the
// template to use them. Like text/template, it panics when a value is not
// a function with one result (or a result and an error) or a name is not
// an identifier: that is a bug in the program, not in the template.
func (t *Template) Funcs(m FuncMap) *Template {
	for name, fn := range m {
		if !goodName(name) {
			panic(fmt.Errorf("function name %q is not a valid identifier", name))
		}
		v := reflect.ValueOf(fn)
		if v.Kind() != reflect.Func {
			panic("value for " + name + " not a function")
		}
		if err := goodFunc(name, v.Type()); err != nil {
			panic(err)
		}
		t.set.funcs[name] = fn
		t.set.execFuncs[name] = v
	}
	return t
}

// Option sets options as text/template's Option does; the one known is
// missingkey, for a map indexed by a key it lacks:
//
//	missingkey=default or missingkey=invalid  print <no value> (the default)
//	missingkey=zero                           use the zero of the element type
//	missingkey=error                          stop with an error
//
// It panics on an unknown option.
func (t *Template) Option(opt ...string) *Template {
	for _, o := range opt {
		switch o {
		case "missingkey=default", "missingkey=invalid":
			t.set.missingKey = missingInvalid
		case "missingkey=zero":
			t.set.missingKey = missingZero
		case "missingkey=error":
			t.set.missingKey = missingError
		case "":
			panic("empty option string")
		default:
			panic("unrecognized option: " + o)
		}
	}
	return t
}

// Parse parses text as the template's body; the templates it defines join
// the template's set. As in text/template, Parse may be called again to
// add or redefine templates, and a definition that is only space and
// comments does not replace one already there.
func (t *Template) Parse(text string) (*Template, error) {
	trees, err := parse.Parse(t.name, text, "", "", t.set.funcs, builtinNames())
	if err != nil {
		return nil, err
	}
	for name, tree := range trees {
		if old := t.set.trees[name]; old != nil && parse.IsEmptyTree(tree.Root) {
			continue
		}
		t.set.trees[name] = tree
	}
	return t, nil
}

// Must returns t, and panics when err is not nil; for templates fixed in
// the program, as template.Must.
func Must(t *Template, err error) *Template {
	if err != nil {
		panic(err)
	}
	return t
}

// Execute applies the template to data and writes the result to w. An
// error stops it, possibly after some output has been written. The error
// names the template, line and column, and the action that failed, as
// text/template's do; an error from w is returned as it is.
func (t *Template) Execute(w io.Writer, data any) (err error) {
	value, ok := data.(reflect.Value)
	if !ok {
		value = reflect.ValueOf(data)
	}
	s := &state{set: t.set, name: t.name, w: w, vars: []variable{{"$", value}}}
	defer s.recover(&err)
	if t.set.maxSteps > 0 {
		s.steps = new(int)
	}
	tree := t.set.trees[t.name]
	if tree == nil || tree.Root == nil {
		s.errorf("%q is an incomplete or empty template", t.name)
	}
	s.tree = tree
	s.walk(value, tree.Root)
	return nil
}

// goodName reports whether name can be called from a template.
func goodName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_':
		case i == 0 && !unicode.IsLetter(r):
			return false
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			return false
		}
	}
	return true
}

// goodFunc reports whether a function's results suit a template: one
// value, or a value and an error.
func goodFunc(name string, typ reflect.Type) error {
	switch n := typ.NumOut(); {
	case n == 1:
		return nil
	case n == 2 && typ.Out(1) == errorType():
		return nil
	case n == 2:
		return fmt.Errorf("invalid function signature for %s: second return value should be error; is %s", name, typ.Out(1))
	default:
		return fmt.Errorf("function %s has %d return values; should be 1 or 2", name, n)
	}
}
