package tmpl

import (
	"reflect"
	"strings"
	"text/template/parse"
)

// missingVal stands for "no value from the pipeline": the first command of a
// pipeline gets it as its final argument, every later one the previous
// command's result. It is a value of a type no data can hold.
type missingType struct{}

func missingVal() reflect.Value { return reflect.ValueOf(missingType{}) }

func isMissing(v reflect.Value) bool {
	return v.IsValid() && v.Type() == missingTyp()
}

func missingTyp() reflect.Type { return reflect.TypeFor[missingType]() }

// evalPipeline is the pipeline's value, with any variables it declares
// pushed (or assigned): the caller pops them when its block ends.
func (s *state) evalPipeline(dot reflect.Value, pipe *parse.PipeNode) reflect.Value {
	if pipe == nil {
		return reflect.Value{}
	}
	s.at(pipe)
	v := missingVal()
	for _, cmd := range pipe.Cmds {
		v = s.evalCommand(dot, cmd, v)
		// An interface{} result stands for what it holds.
		if v.Kind() == reflect.Interface && v.Type().NumMethod() == 0 {
			v = v.Elem()
		}
	}
	for _, d := range pipe.Decl {
		if pipe.IsAssign {
			s.setVar(d.Ident[0], v)
		} else {
			s.push(d.Ident[0], v)
		}
	}
	return v
}

func (s *state) notAFunction(args []parse.Node, final reflect.Value) {
	if len(args) > 1 || !isMissing(final) {
		s.errorf("can't give argument to non-function %s", args[0])
	}
}

func (s *state) evalCommand(dot reflect.Value, cmd *parse.CommandNode, final reflect.Value) reflect.Value {
	first := cmd.Args[0]
	switch n := first.(type) {
	case *parse.FieldNode:
		return s.evalFieldNode(dot, n, cmd.Args, final)
	case *parse.ChainNode:
		return s.evalChainNode(dot, n, cmd.Args, final)
	case *parse.IdentifierNode:
		return s.evalFunction(dot, n, cmd, cmd.Args, final)
	case *parse.PipeNode:
		// (pipeline): its arguments are inside it.
		s.notAFunction(cmd.Args, final)
		return s.evalPipeline(dot, n)
	case *parse.VariableNode:
		return s.evalVariableNode(dot, n, cmd.Args, final)
	}
	s.at(first)
	s.notAFunction(cmd.Args, final)
	switch n := first.(type) {
	case *parse.BoolNode:
		return reflect.ValueOf(n.True)
	case *parse.DotNode:
		return dot
	case *parse.NilNode:
		s.errorf("nil is not a command")
	case *parse.NumberNode:
		return s.idealConstant(n)
	case *parse.StringNode:
		return reflect.ValueOf(n.Text)
	}
	s.errorf("can't evaluate command %q", first)
	return reflect.Value{}
}

// idealConstant is a number where nothing says which type it should have:
// its spelling decides, as for an untyped Go constant, and an integer that
// does not fit an int is an error rather than a uint.
func (s *state) idealConstant(n *parse.NumberNode) reflect.Value {
	s.at(n)
	switch {
	case n.IsComplex:
		return reflect.ValueOf(n.Complex128)
	case n.IsFloat && !isHexInt(n.Text) && !isRuneInt(n.Text) && strings.ContainsAny(n.Text, ".eEpP"):
		return reflect.ValueOf(n.Float64)
	case n.IsInt:
		i := int(n.Int64)
		if int64(i) != n.Int64 {
			s.errorf("%s overflows int", n.Text)
		}
		return reflect.ValueOf(i)
	case n.IsUint:
		s.errorf("%s overflows int", n.Text)
	}
	return reflect.Value{}
}

func isRuneInt(s string) bool { return len(s) > 0 && s[0] == '\'' }

func isHexInt(s string) bool {
	return len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && !strings.ContainsAny(s, "pP")
}

func (s *state) evalFieldNode(dot reflect.Value, f *parse.FieldNode, args []parse.Node, final reflect.Value) reflect.Value {
	s.at(f)
	return s.evalFieldChain(dot, dot, f, f.Ident, args, final)
}

// evalChainNode is (pipeline).Field.Field.
func (s *state) evalChainNode(dot reflect.Value, c *parse.ChainNode, args []parse.Node, final reflect.Value) reflect.Value {
	s.at(c)
	if len(c.Field) == 0 {
		s.errorf("internal error: no fields in evalChainNode")
	}
	if c.Node.Type() == parse.NodeNil {
		s.errorf("indirection through explicit nil in %s", c)
	}
	v := s.evalArg(dot, nil, c.Node)
	return s.evalFieldChain(dot, v, c, c.Field, args, final)
}

// evalVariableNode is $x or $x.Field.Field.
func (s *state) evalVariableNode(dot reflect.Value, v *parse.VariableNode, args []parse.Node, final reflect.Value) reflect.Value {
	s.at(v)
	val := s.varValue(v.Ident[0])
	if len(v.Ident) == 1 {
		s.notAFunction(args, final)
		return val
	}
	return s.evalFieldChain(dot, val, v, v.Ident[1:], args, final)
}

// evalFieldChain walks .X.Y.Z from receiver; only the last may be given
// arguments (and then fails, fields not being functions).
func (s *state) evalFieldChain(dot, receiver reflect.Value, node parse.Node, ident []string, args []parse.Node, final reflect.Value) reflect.Value {
	n := len(ident)
	for i := 0; i < n-1; i++ {
		receiver = s.evalField(ident[i], nil, missingVal(), receiver)
	}
	return s.evalField(ident[n-1], args, final, receiver)
}

// evalField is receiver.name: a Fielder's field, a struct field or a map
// entry, in that order (Fielder stands in for text/template's methods,
// which come first there too).
func (s *state) evalField(name string, args []parse.Node, final, receiver reflect.Value) reflect.Value {
	if !receiver.IsValid() {
		if s.set.missingKey == missingError { // nil data is a map without the key
			s.errorf("nil data; no entry for key %q", name)
		}
		return reflect.Value{}
	}
	typ := receiver.Type()
	receiver, isNil := indirect(receiver)
	if receiver.Kind() == reflect.Interface && isNil {
		s.errorf("nil pointer evaluating %s.%s", typ, name)
	}
	hasArgs := len(args) > 1 || !isMissing(final)
	if v, ok := s.fielder(receiver, name); ok {
		if hasArgs {
			s.errorf("%s has arguments but cannot be invoked as function", name)
		}
		return v
	}
	switch receiver.Kind() {
	case reflect.Struct:
		f, ok := receiver.Type().FieldByName(name)
		if !ok {
			f, ok = aliasField(receiver.Type(), name)
		}
		if !ok {
			s.errorf("%v", fieldErrorValue(name, receiver))
		}
		if !f.IsExported() {
			s.errorf("%s is an unexported field of struct type %s", name, typ)
		}
		v, err := receiver.FieldByIndexErr(f.Index)
		if err != nil {
			s.errorf("%v", err)
		}
		if hasArgs {
			s.errorf("%s has arguments but cannot be invoked as function", name)
		}
		return v
	case reflect.Map:
		key := reflect.ValueOf(name)
		if !key.Type().AssignableTo(receiver.Type().Key()) {
			break
		}
		if hasArgs {
			s.errorf("%s is not a method but has arguments", name)
		}
		v := receiver.MapIndex(key)
		if !v.IsValid() {
			switch s.set.missingKey {
			case missingZero:
				v = reflect.Zero(receiver.Type().Elem())
			case missingError:
				s.errorf("map has no entry for key %q", name)
			}
		}
		return v
	case reflect.Pointer: // a nil one, from indirect
		if et := receiver.Type().Elem(); et.Kind() == reflect.Struct {
			if _, ok := et.FieldByName(name); !ok {
				break // no such field is the better message
			}
		}
		if isNil {
			s.errorf("nil pointer evaluating %s.%s", typ, name)
		}
	}
	s.errorf("can't evaluate field %s in type %s", name, typ)
	return reflect.Value{}
}

func fielderType() reflect.Type { return reflect.TypeFor[Fielder]() }

// fielder asks v, or a pointer to it, for a computed field. A pointer
// receiver is honoured even when v is not addressable (a map element, a
// value in an interface), on a copy, where text/template would not find
// the method: a Fielder exists to be found.
func (s *state) fielder(v reflect.Value, name string) (reflect.Value, bool) {
	if !v.IsValid() || !v.CanInterface() {
		return reflect.Value{}, false
	}
	// A type assertion on a pointer is cheaper than asking reflect about
	// method sets, and a pointer's method set has the value's methods.
	var p any
	switch {
	case v.Kind() == reflect.Pointer: // nil, from indirect
		p = v.Interface()
	case v.Kind() == reflect.Interface:
		return reflect.Value{}, false
	case v.CanAddr():
		p = v.Addr().Interface()
	case reflect.PointerTo(v.Type()).Implements(fielderType()):
		c := reflect.New(v.Type())
		c.Elem().Set(v)
		p = c.Interface()
	default:
		return reflect.Value{}, false
	}
	f, ok := p.(Fielder)
	if !ok {
		return reflect.Value{}, false
	}
	x, ok, err := safeField(f, name)
	if err != nil {
		s.errorw(err, "error calling TemplateField(%q)", name)
	}
	return reflect.ValueOf(x), ok
}

// safeField turns a panic in TemplateField into an error, as a panic in
// a method would be in text/template.
func safeField(f Fielder, name string) (x any, ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	x, ok = f.TemplateField(name)
	return x, ok, nil
}
