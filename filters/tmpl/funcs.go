package tmpl

import (
	"errors"
	"fmt"
	"reflect"
	"text/template/parse"
)

// builtin is a predefined function. Most take their arguments as they
// are (fn); print, printf and println are fmt's and go through reflect
// like any FuncMap function (gofn), for text/template's conversions.
type builtin struct {
	fn       func(args []reflect.Value) (reflect.Value, error)
	nargs    int  // fixed arguments
	variadic bool // and then any number
	gofn     reflect.Value
}

// builtinList names the builtins, for the parser: a template calling an
// unknown function does not parse.
var builtinList = [...]string{
	"and", "call", "html", "index", "js", "len", "not", "or", "print", "printf",
	"println", "slice", "urlquery", "eq", "ge", "gt", "le", "lt", "ne",
}

func builtinNames() map[string]any {
	m := make(map[string]any, len(builtinList))
	for _, name := range builtinList {
		m[name] = true
	}
	return m
}

// lookupBuiltin is a switch rather than a map so that a program that
// never runs a template pays nothing at start-up.
func lookupBuiltin(name string) (builtin, bool) {
	switch name {
	case "and", "or":
		return builtin{nargs: 1, variadic: true, fn: andOr}, true // evalBuiltin short-circuits
	case "not":
		return builtin{nargs: 1, fn: func(a []reflect.Value) (reflect.Value, error) {
			return reflect.ValueOf(!truth(a[0])), nil
		}}, true
	case "len":
		return builtin{nargs: 1, fn: length}, true
	case "index":
		return builtin{nargs: 1, variadic: true, fn: index}, true
	case "slice":
		return builtin{nargs: 1, variadic: true, fn: slice}, true
	case "call":
		return builtin{nargs: 1, variadic: true, fn: call}, true
	case "eq":
		return builtin{nargs: 1, variadic: true, fn: boolFunc(eq)}, true
	case "ne":
		return builtin{nargs: 2, fn: boolFunc(ne)}, true
	case "lt":
		return builtin{nargs: 2, fn: boolFunc(lt)}, true
	case "le":
		return builtin{nargs: 2, fn: boolFunc(le)}, true
	case "gt":
		return builtin{nargs: 2, fn: boolFunc(gt)}, true
	case "ge":
		return builtin{nargs: 2, fn: boolFunc(ge)}, true
	case "print":
		return builtin{gofn: reflect.ValueOf(fmt.Sprint)}, true
	case "printf":
		return builtin{gofn: reflect.ValueOf(fmt.Sprintf)}, true
	case "println":
		return builtin{gofn: reflect.ValueOf(fmt.Sprintln)}, true
	case "html":
		return builtin{gofn: reflect.ValueOf(htmlEscaper)}, true
	case "js":
		return builtin{gofn: reflect.ValueOf(jsEscaper)}, true
	case "urlquery":
		return builtin{gofn: reflect.ValueOf(urlQueryEscaper)}, true
	}
	return builtin{}, false
}

func boolFunc(f func(a []reflect.Value) (bool, error)) func([]reflect.Value) (reflect.Value, error) {
	return func(a []reflect.Value) (reflect.Value, error) {
		ok, err := f(a)
		return reflect.ValueOf(ok), err
	}
}

// evalBuiltin calls a builtin of ours, arguments as evaluated. and and or
// evaluate theirs only until one decides.
func (s *state) evalBuiltin(dot reflect.Value, b builtin, node parse.Node, name string, args []parse.Node, final reflect.Value) reflect.Value {
	if args != nil {
		args = args[1:] // args[0] is the function's own node
	}
	n := len(args)
	if !isMissing(final) {
		n++
	}
	if b.variadic && n < b.nargs {
		s.errorf("wrong number of args for %s: want at least %d got %d", name, b.nargs, n)
	} else if !b.variadic && n != b.nargs {
		s.errorf("wrong number of args for %s: want %d got %d", name, b.nargs, n)
	}
	if name == "and" || name == "or" {
		var v reflect.Value
		for _, arg := range args {
			v = s.builtinArg(dot, arg)
			if truth(v) == (name == "or") {
				return v
			}
		}
		if !isMissing(final) {
			v = unwrapValue(final)
		}
		return v
	}
	argv := make([]reflect.Value, 0, n)
	for _, arg := range args {
		argv = append(argv, s.builtinArg(dot, arg))
	}
	if !isMissing(final) {
		argv = append(argv, unwrapValue(final))
	}
	if name == "call" {
		// For messages: the callee as written, or the value piped in.
		callee := ""
		if len(args) > 0 {
			callee = args[0].String()
		} else {
			callee = final.String()
		}
		argv = append([]reflect.Value{reflect.ValueOf(callee)}, argv...)
	}
	v, err := safeBuiltin(b.fn, argv)
	if err != nil {
		s.at(node)
		s.errorw(err, "error calling %s", name)
	}
	return v
}

// safeBuiltin runs a builtin, a panic in which (reflect's, on values it
// cannot compare or slice) is an error, as in text/template.
func safeBuiltin(fn func([]reflect.Value) (reflect.Value, error), args []reflect.Value) (v reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	return fn(args)
}

func andOr([]reflect.Value) (reflect.Value, error) { panic("unreachable") }

func length(a []reflect.Value) (reflect.Value, error) {
	item, isNil := indirect(a[0])
	if isNil {
		return reflect.Value{}, errors.New("len of nil pointer")
	}
	switch item.Kind() {
	case reflect.Array, reflect.Chan, reflect.Map, reflect.Slice, reflect.String:
		return reflect.ValueOf(item.Len()), nil
	case reflect.Invalid:
		return reflect.Value{}, errors.New("len of nil")
	}
	return reflect.Value{}, fmt.Errorf("len of type %s", item.Type())
}

// index is index x 1 2: x[1][2], through pointers and interfaces; a key
// missing from a map gives the zero value.
func index(a []reflect.Value) (reflect.Value, error) {
	item := indirectInterface(a[0])
	if !item.IsValid() {
		return reflect.Value{}, errors.New("index of untyped nil")
	}
	for _, i := range a[1:] {
		i = indirectInterface(i)
		var isNil bool
		if item, isNil = indirect(item); isNil {
			return reflect.Value{}, errors.New("index of nil pointer")
		}
		switch item.Kind() {
		case reflect.Array, reflect.Slice, reflect.String:
			x, err := indexArg(i, item.Len())
			if err != nil {
				return reflect.Value{}, err
			}
			if x == item.Len() {
				return reflect.Value{}, fmt.Errorf("index out of range: %d", x)
			}
			item = item.Index(x)
		case reflect.Map:
			k, err := prepareArg(i, item.Type().Key())
			if err != nil {
				return reflect.Value{}, err
			}
			if v := item.MapIndex(k); v.IsValid() {
				item = v
			} else {
				item = reflect.Zero(item.Type().Elem())
			}
		default:
			return reflect.Value{}, fmt.Errorf("can't index item of type %s", item.Type())
		}
	}
	return item, nil
}

// slice is slice x 1 2: x[1:2], and with 0, 1 or 3 indexes x[:], x[1:],
// x[1:2:3].
func slice(a []reflect.Value) (reflect.Value, error) {
	item := indirectInterface(a[0])
	if !item.IsValid() {
		return reflect.Value{}, errors.New("slice of untyped nil")
	}
	item, isNil := indirect(item)
	if isNil {
		return reflect.Value{}, errors.New("slice of nil pointer")
	}
	indexes := a[1:]
	if len(indexes) > 3 {
		return reflect.Value{}, fmt.Errorf("too many slice indexes: %d", len(indexes))
	}
	var c int
	switch item.Kind() {
	case reflect.String:
		if len(indexes) == 3 {
			return reflect.Value{}, errors.New("cannot 3-index slice a string")
		}
		c = item.Len()
	case reflect.Array, reflect.Slice:
		c = item.Cap()
	default:
		return reflect.Value{}, fmt.Errorf("can't slice item of type %s", item.Type())
	}
	idx := [3]int{0, item.Len()}
	for i, index := range indexes {
		x, err := indexArg(index, c)
		if err != nil {
			return reflect.Value{}, err
		}
		idx[i] = x
	}
	if idx[0] > idx[1] {
		return reflect.Value{}, fmt.Errorf("invalid slice index: %d > %d", idx[0], idx[1])
	}
	if len(indexes) < 3 {
		return item.Slice(idx[0], idx[1]), nil
	}
	if idx[1] > idx[2] {
		return reflect.Value{}, fmt.Errorf("invalid slice index: %d > %d", idx[1], idx[2])
	}
	return item.Slice3(idx[0], idx[1], idx[2]), nil
}

// indexArg is an index in [0, limit], of any integer kind.
func indexArg(v reflect.Value, limit int) (int, error) {
	var x int64
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x = v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		x = int64(v.Uint())
	case reflect.Invalid:
		return 0, errors.New("cannot index slice/array with nil")
	default:
		return 0, fmt.Errorf("cannot index slice/array with type %s", v.Type())
	}
	if x < 0 || int(x) < 0 || int(x) > limit {
		return 0, fmt.Errorf("index out of range: %d", x)
	}
	return int(x), nil
}

// prepareArg makes v fit a parameter (or map key) of type typ: nil
// becomes its zero, and integers convert between kinds.
func prepareArg(v reflect.Value, typ reflect.Type) (reflect.Value, error) {
	if !v.IsValid() {
		if !canBeNil(typ) {
			return reflect.Value{}, fmt.Errorf("value is nil; should be of type %s", typ)
		}
		v = reflect.Zero(typ)
	}
	if v.Type().AssignableTo(typ) {
		return v, nil
	}
	if intLike(v.Kind()) && intLike(typ.Kind()) && v.Type().ConvertibleTo(typ) {
		return v.Convert(typ), nil
	}
	return reflect.Value{}, fmt.Errorf("value has type %s; should be %s", v.Type(), typ)
}

func intLike(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// call is call fn args...: a[0] is the callee's name, for messages.
func call(a []reflect.Value) (reflect.Value, error) {
	name, fn, args := a[0].String(), indirectInterface(a[1]), a[2:]
	if !fn.IsValid() {
		return reflect.Value{}, errors.New("call of nil")
	}
	typ := fn.Type()
	if typ.Kind() != reflect.Func {
		return reflect.Value{}, fmt.Errorf("non-function %s of type %s", name, typ)
	}
	if err := goodFunc(name, typ); err != nil {
		return reflect.Value{}, err
	}
	numIn := typ.NumIn()
	var dddType reflect.Type
	if typ.IsVariadic() {
		if len(args) < numIn-1 {
			return reflect.Value{}, fmt.Errorf("wrong number of args for %s: got %d want at least %d", name, len(args), numIn-1)
		}
		dddType = typ.In(numIn - 1).Elem()
	} else if len(args) != numIn {
		return reflect.Value{}, fmt.Errorf("wrong number of args for %s: got %d want %d", name, len(args), numIn)
	}
	argv := make([]reflect.Value, len(args))
	for i, arg := range args {
		t := dddType
		if !typ.IsVariadic() || i < numIn-1 {
			t = typ.In(i)
		}
		var err error
		if argv[i], err = prepareArg(indirectInterface(arg), t); err != nil {
			return reflect.Value{}, fmt.Errorf("arg %d: %w", i, err)
		}
	}
	return safeCall(fn, argv)
}
