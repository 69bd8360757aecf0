package tmpl

import (
	"fmt"
	"reflect"
	"text/template/parse"
)

// Types compared against. Functions rather than variables, as everywhere
// in this package: a variable set by a call is start-up work in every
// program that links tmpl, which includes ag-hook's millisecond hook.
func errorType() reflect.Type        { return reflect.TypeFor[error]() }
func fmtStringerType() reflect.Type  { return reflect.TypeFor[fmt.Stringer]() }
func reflectValueType() reflect.Type { return reflect.TypeFor[reflect.Value]() }

// evalFunction calls the function named by node: the template's own
// first, so they may replace builtins, as in text/template.
func (s *state) evalFunction(dot reflect.Value, node *parse.IdentifierNode, cmd parse.Node, args []parse.Node, final reflect.Value) reflect.Value {
	s.at(node)
	name := node.Ident
	if fn, ok := s.set.execFuncs[name]; ok {
		return s.evalCall(dot, fn, cmd, name, args, final)
	}
	if b, ok := lookupBuiltin(name); ok {
		if b.fn == nil {
			return s.evalCall(dot, b.gofn, cmd, name, args, final)
		}
		return s.evalBuiltin(dot, b, cmd, name, args, final)
	}
	s.errorf("%q is not a defined function", name)
	return reflect.Value{}
}

// evalCall calls a Go function through reflection with text/template's
// argument rules. args[0] is the function's own node; final, unless
// missing, is the value piped in, passed last.
func (s *state) evalCall(dot, fn reflect.Value, node parse.Node, name string, args []parse.Node, final reflect.Value) reflect.Value {
	if args != nil {
		args = args[1:]
	}
	typ := fn.Type()
	numIn := len(args)
	if !isMissing(final) {
		numIn++
	}
	numFixed := len(args)
	if typ.IsVariadic() {
		numFixed = typ.NumIn() - 1
		if numIn < numFixed {
			s.errorf("wrong number of args for %s: want at least %d got %d", name, typ.NumIn()-1, len(args))
		}
	} else if numIn != typ.NumIn() {
		s.errorf("wrong number of args for %s: want %d got %d", name, typ.NumIn(), numIn)
	}
	if err := goodFunc(name, typ); err != nil {
		s.errorf("%v", err)
	}
	argv := make([]reflect.Value, numIn)
	i := 0
	for ; i < numFixed && i < len(args); i++ {
		argv[i] = s.evalArg(dot, typ.In(i), args[i])
	}
	if typ.IsVariadic() {
		et := typ.In(typ.NumIn() - 1).Elem()
		for ; i < len(args); i++ {
			argv[i] = s.evalArg(dot, et, args[i])
		}
	}
	if !isMissing(final) {
		t := typ.In(typ.NumIn() - 1)
		if typ.IsVariadic() {
			if numIn-1 < numFixed {
				t = typ.In(numIn - 1) // final fills a fixed parameter
			} else {
				t = t.Elem()
			}
		}
		argv[i] = s.validateType(final, t)
	}
	v, err := safeCall(fn, argv)
	if err != nil {
		s.at(node)
		s.errorw(err, "error calling %s", name)
	}
	return unwrapValue(v)
}

// safeCall calls fn, turning its error result, or a panic, into err.
func safeCall(fn reflect.Value, args []reflect.Value) (v reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	out := fn.Call(args)
	if len(out) == 2 && !out[1].IsNil() {
		return out[0], out[1].Interface().(error)
	}
	return out[0], nil
}

func panicError(r any) error {
	if e, ok := r.(error); ok {
		return e
	}
	return fmt.Errorf("%v", r)
}

// unwrapValue makes a function's reflect.Value result the value it holds.
func unwrapValue(v reflect.Value) reflect.Value {
	if v.IsValid() && v.Type() == reflectValueType() && v.CanInterface() {
		return v.Interface().(reflect.Value)
	}
	return v
}

// canBeNil reports whether nil converts to typ.
func canBeNil(typ reflect.Type) bool {
	switch typ.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice:
		return true
	case reflect.Struct:
		return typ == reflectValueType()
	}
	return false
}

// validateType makes v fit a parameter of type typ (nil: anything): a nil
// becomes typ's zero, an interface gives up its content, and one pointer
// may be followed or taken, as text/template allows.
func (s *state) validateType(v reflect.Value, typ reflect.Type) reflect.Value {
	if !v.IsValid() {
		if typ == nil {
			return reflect.ValueOf(nil)
		}
		if canBeNil(typ) {
			return reflect.Zero(typ)
		}
		s.errorf("invalid value; expected %s", typ)
	}
	if typ == reflectValueType() && v.Type() != typ {
		return reflect.ValueOf(v)
	}
	if typ == nil || v.Type().AssignableTo(typ) {
		return v
	}
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
		if v.Type().AssignableTo(typ) {
			return v
		}
	}
	switch {
	case v.Kind() == reflect.Pointer && v.Type().Elem().AssignableTo(typ):
		v = v.Elem()
		if !v.IsValid() {
			s.errorf("dereference of nil pointer of type %s", typ)
		}
	case reflect.PointerTo(v.Type()).AssignableTo(typ) && v.CanAddr():
		v = v.Addr()
	default:
		s.errorf("wrong type for value; expected %s; got %s", typ, v.Type())
	}
	return v
}

// evalArg evaluates an argument for a parameter of type typ (nil: any);
// constants take the parameter's type, as untyped Go constants would.
func (s *state) evalArg(dot reflect.Value, typ reflect.Type, n parse.Node) reflect.Value {
	s.at(n)
	switch arg := n.(type) {
	case *parse.DotNode:
		return s.validateType(dot, typ)
	case *parse.NilNode:
		if typ != nil && canBeNil(typ) {
			return reflect.Zero(typ)
		}
		s.errorf("cannot assign nil to %s", typ)
	case *parse.FieldNode:
		return s.validateType(s.evalFieldNode(dot, arg, []parse.Node{n}, missingVal()), typ)
	case *parse.VariableNode:
		return s.validateType(s.evalVariableNode(dot, arg, nil, missingVal()), typ)
	case *parse.PipeNode:
		return s.validateType(s.evalPipeline(dot, arg), typ)
	case *parse.IdentifierNode:
		return s.validateType(s.evalFunction(dot, arg, arg, nil, missingVal()), typ)
	case *parse.ChainNode:
		return s.validateType(s.evalChainNode(dot, arg, nil, missingVal()), typ)
	}
	if typ == nil {
		return s.evalAny(dot, n)
	}
	switch typ.Kind() {
	case reflect.Bool:
		if b, ok := n.(*parse.BoolNode); ok {
			v := reflect.New(typ).Elem()
			v.SetBool(b.True)
			return v
		}
		s.errorf("expected bool; found %s", n)
	case reflect.String:
		if str, ok := n.(*parse.StringNode); ok {
			v := reflect.New(typ).Elem()
			v.SetString(str.Text)
			return v
		}
		s.errorf("expected string; found %s", n)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if num, ok := n.(*parse.NumberNode); ok && num.IsInt {
			v := reflect.New(typ).Elem()
			v.SetInt(num.Int64)
			return v
		}
		s.errorf("expected integer; found %s", n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if num, ok := n.(*parse.NumberNode); ok && num.IsUint {
			v := reflect.New(typ).Elem()
			v.SetUint(num.Uint64)
			return v
		}
		s.errorf("expected unsigned integer; found %s", n)
	case reflect.Float32, reflect.Float64:
		if num, ok := n.(*parse.NumberNode); ok && num.IsFloat {
			v := reflect.New(typ).Elem()
			v.SetFloat(num.Float64)
			return v
		}
		s.errorf("expected float; found %s", n)
	case reflect.Complex64, reflect.Complex128:
		if num, ok := n.(*parse.NumberNode); ok && num.IsComplex {
			v := reflect.New(typ).Elem()
			v.SetComplex(num.Complex128)
			return v
		}
		s.errorf("expected complex; found %s", n)
	case reflect.Interface:
		if typ.NumMethod() == 0 {
			return s.evalAny(dot, n)
		}
	case reflect.Struct:
		if typ == reflectValueType() {
			return reflect.ValueOf(s.evalAny(dot, n))
		}
	}
	s.errorf("can't handle %s for arg of type %s", n, typ)
	return reflect.Value{}
}

// evalAny evaluates an argument for a parameter that takes anything: what
// the builtins get, and what an interface{} parameter gets.
func (s *state) evalAny(dot reflect.Value, n parse.Node) reflect.Value {
	s.at(n)
	switch n := n.(type) {
	case *parse.BoolNode:
		return reflect.ValueOf(n.True)
	case *parse.DotNode:
		return dot
	case *parse.FieldNode:
		return s.evalFieldNode(dot, n, nil, missingVal())
	case *parse.IdentifierNode:
		return s.evalFunction(dot, n, n, nil, missingVal())
	case *parse.NumberNode:
		return s.idealConstant(n)
	case *parse.StringNode:
		return reflect.ValueOf(n.Text)
	case *parse.VariableNode:
		return s.evalVariableNode(dot, n, nil, missingVal())
	case *parse.PipeNode:
		return s.evalPipeline(dot, n)
	case *parse.ChainNode:
		return s.evalChainNode(dot, n, nil, missingVal())
	case *parse.NilNode:
		return reflect.Value{}
	}
	s.errorf("can't handle assignment of %s to empty interface argument", n)
	return reflect.Value{}
}

// builtinArg evaluates an argument of a builtin, which takes any value
// as it is (text/template passes them as reflect.Value).
func (s *state) builtinArg(dot reflect.Value, n parse.Node) reflect.Value {
	return unwrapValue(s.evalAny(dot, n))
}
