package tmpl

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"text/template/parse"
)

// maxDepth bounds {{template}} nesting, so a template that calls itself
// forever fails instead of exhausting the stack. text/template allows
// 100000; a status line has no use for more than a few.
const maxDepth = 10000

// state is one execution: templates are shared, states are not.
type state struct {
	set   *set
	name  string      // of the template executing, for errors
	tree  *parse.Tree // its tree
	w     io.Writer
	node  parse.Node // being evaluated, for errors
	vars  []variable // a stack: declarations push, ends of blocks pop
	depth int
	steps *int // nodes walked, when the set limits them
}

type variable struct {
	name  string
	value reflect.Value
}

// execError and writeError carry failures up the Go stack by panic, as
// text/template does: evaluation nests deeply and almost any step can
// fail, and returning errors through all of it would double the code.
type execError struct{ err error }
type writeError struct{ err error }

// errSteps is the error of a template that walked more than maxSteps.
const errSteps = "too many steps"

// flow is how a walk ended: normally, or at {{break}} or {{continue}},
// which the nearest range consumes.
type flow int

const (
	flowNext flow = iota
	flowBreak
	flowContinue
)

// errorf stops execution with an error that says where, as text/template's
// do: template: NAME:LINE:COL: executing "NAME" at <NODE>: message.
func (s *state) errorf(format string, args ...any) { s.fail(fmt.Sprintf(format, args...), nil) }

// errorw is errorf wrapping err, so callers can find a function's error
// with errors.Is and errors.As.
func (s *state) errorw(err error, format string, args ...any) {
	s.fail(fmt.Sprintf(format, args...), err)
}

func (s *state) fail(msg string, err error) {
	where := "template: " + s.name
	if s.node != nil && s.tree != nil {
		loc, ctx := s.tree.ErrorContext(s.node)
		where = fmt.Sprintf("template: %s: executing %q at <%s>", loc, s.name, ctx)
	}
	if err != nil {
		panic(execError{fmt.Errorf("%s: %s: %w", where, msg, err)})
	}
	panic(execError{errors.New(where + ": " + msg)})
}

// recover turns the panics above into Execute's error. Any other panic is
// a bug here, but ag-hook must not die of it: it becomes an error too,
// marked as internal so tests can tell.
func (s *state) recover(errp *error) {
	switch e := recover().(type) {
	case nil:
	case execError:
		*errp = e.err
	case writeError:
		*errp = e.err
	default:
		*errp = fmt.Errorf("template: %s: internal error: %v", s.name, e)
	}
}

func (s *state) at(n parse.Node) { s.node = n }

func (s *state) mark() int { return len(s.vars) }

func (s *state) pop(mark int) { s.vars = s.vars[:mark] }

func (s *state) push(name string, v reflect.Value) {
	s.vars = append(s.vars, variable{name, v})
}

// setVar assigns to the innermost variable of that name ($x = ...).
func (s *state) setVar(name string, v reflect.Value) {
	for i := len(s.vars) - 1; i >= 0; i-- {
		if s.vars[i].name == name {
			s.vars[i].value = v
			return
		}
	}
	s.errorf("undefined variable: %s", name)
}

func (s *state) varValue(name string) reflect.Value {
	for i := len(s.vars) - 1; i >= 0; i-- {
		if s.vars[i].name == name {
			return s.vars[i].value
		}
	}
	s.errorf("undefined variable: %s", name)
	return reflect.Value{}
}

func (s *state) walk(dot reflect.Value, node parse.Node) flow {
	s.at(node)
	if s.steps != nil {
		if *s.steps++; *s.steps > s.set.maxSteps {
			s.errorf("%s", errSteps)
		}
	}
	switch n := node.(type) {
	case *parse.ActionNode:
		// Variables declared here live until the enclosing block ends.
		v := s.evalPipeline(dot, n.Pipe)
		if len(n.Pipe.Decl) == 0 {
			s.printValue(n, v)
		}
	case *parse.BreakNode:
		return flowBreak
	case *parse.ContinueNode:
		return flowContinue
	case *parse.CommentNode:
	case *parse.IfNode:
		return s.walkIfOrWith(false, dot, n.Pipe, n.List, n.ElseList)
	case *parse.WithNode:
		return s.walkIfOrWith(true, dot, n.Pipe, n.List, n.ElseList)
	case *parse.ListNode:
		for _, n := range n.Nodes {
			if f := s.walk(dot, n); f != flowNext {
				return f
			}
		}
	case *parse.RangeNode:
		return s.walkRange(dot, n)
	case *parse.TemplateNode:
		s.walkTemplate(dot, n)
	case *parse.TextNode:
		if _, err := s.w.Write(n.Text); err != nil {
			panic(writeError{err})
		}
	default:
		s.errorf("unknown node: %s", node)
	}
	return flowNext
}

// walkIfOrWith runs if and with, which differ only in with setting dot.
func (s *state) walkIfOrWith(with bool, dot reflect.Value, pipe *parse.PipeNode, list, elseList *parse.ListNode) flow {
	mark := s.mark()
	defer s.pop(mark)
	v := s.evalPipeline(dot, pipe)
	truth, ok := isTrue(indirectInterface(v))
	if !ok {
		s.errorf("if/with can't use %v", v)
	}
	switch {
	case truth && with:
		return s.walk(v, list)
	case truth:
		return s.walk(dot, list)
	case elseList != nil:
		return s.walk(dot, elseList)
	}
	return flowNext
}

// walkRange runs a range. A {{break}} or {{continue}} in the body ends
// there; in the else branch (which may sit in an outer range) a continue
// goes on up while a break only ends this range, as in text/template.
func (s *state) walkRange(dot reflect.Value, r *parse.RangeNode) flow {
	s.at(r)
	defer s.pop(s.mark())
	val, _ := indirect(s.evalPipeline(dot, r.Pipe))
	mark := s.mark() // the range's own variables are below
	decl := r.Pipe.Decl
	switch val.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if len(decl) > 1 {
			s.errorf("can't use %v to iterate over more than one variable", val)
		}
		ran := false
		for v := range val.Seq() {
			ran = true
			if !s.iterate(r, mark, reflect.Value{}, v) {
				return flowNext
			}
		}
		if ran {
			return flowNext
		}
	case reflect.Array, reflect.Slice:
		if val.Len() > 0 {
			for i := 0; i < val.Len(); i++ {
				if !s.iterate(r, mark, reflect.ValueOf(i), val.Index(i)) {
					return flowNext
				}
			}
			return flowNext
		}
	case reflect.Map:
		if val.Len() > 0 {
			for _, kv := range sortedMap(val) {
				if !s.iterate(r, mark, kv.key, kv.value) {
					return flowNext
				}
			}
			return flowNext
		}
	case reflect.Chan:
		if val.IsNil() {
			break
		}
		if val.Type().ChanDir() == reflect.SendDir {
			s.errorf("range over send-only channel %v", val)
		}
		i := 0
		for ; ; i++ {
			elem, ok := val.Recv()
			if !ok {
				break
			}
			if !s.iterate(r, mark, reflect.ValueOf(i), elem) {
				return flowNext
			}
		}
		if i > 0 {
			return flowNext
		}
	case reflect.Invalid:
		// A nil value ranges like an empty map.
	case reflect.Func:
		if !s.rangeFunc(r, mark, val) {
			return flowNext
		}
	default:
		s.errorf("range can't iterate over %v", val)
	}
	if r.ElseList != nil && s.walk(dot, r.ElseList) == flowContinue {
		return flowContinue
	}
	return flowNext
}

// iterate runs a range's body once, with its variables set to index and
// elem; it reports false at {{break}}.
func (s *state) iterate(r *parse.RangeNode, mark int, index, elem reflect.Value) bool {
	decl := r.Pipe.Decl
	switch {
	case len(decl) == 0:
	case r.Pipe.IsAssign && len(decl) > 1: // $i, $v = range
		s.setVar(decl[0].Ident[0], index)
		s.setVar(decl[1].Ident[0], elem)
	case r.Pipe.IsAssign: // $v = range
		s.setVar(decl[0].Ident[0], elem)
	case len(decl) > 1: // $i, $v := range: the last pushed is $v
		s.vars[len(s.vars)-1].value = elem
		s.vars[len(s.vars)-2].value = index
	default:
		s.vars[len(s.vars)-1].value = elem
	}
	f := s.walk(elem, r.List)
	s.pop(mark)
	return f != flowBreak
}

// rangeFunc ranges over an iterator function (iter.Seq, iter.Seq2); it
// reports whether the body never ran, so the else branch should.
func (s *state) rangeFunc(r *parse.RangeNode, mark int, val reflect.Value) bool {
	typ := val.Type()
	ran := false
	switch {
	case typ.CanSeq():
		if len(r.Pipe.Decl) > 1 {
			s.errorf("can't use %v iterate over more than one variable", val)
		}
		for v := range val.Seq() {
			ran = true
			if !s.iterate(r, mark, reflect.Value{}, v) {
				break
			}
		}
	case typ.CanSeq2():
		for k, v := range val.Seq2() {
			ran = true
			if len(r.Pipe.Decl) <= 1 {
				k, v = reflect.Value{}, k // one variable takes the first value
			}
			if !s.iterate(r, mark, k, v) {
				break
			}
		}
	default:
		s.errorf("range can't iterate over %v", val)
	}
	return !ran
}

func (s *state) walkTemplate(dot reflect.Value, t *parse.TemplateNode) {
	s.at(t)
	tree := s.set.trees[t.Name]
	if tree == nil || tree.Root == nil {
		s.errorf("template %q not defined", t.Name)
	}
	if s.depth >= maxDepth {
		s.errorf("exceeded maximum template depth (%v)", maxDepth)
	}
	// Variables the pipeline declares stay, as after any action.
	dot = s.evalPipeline(dot, t.Pipe)
	called := *s
	called.depth++
	called.name, called.tree = t.Name, tree
	called.vars = []variable{{"$", dot}} // templates see no caller's variables
	called.walk(dot, tree.Root)
}
