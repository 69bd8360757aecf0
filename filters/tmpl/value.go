package tmpl

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"text/template/parse"
)

// isTrue is text/template's truth: a value is false when it is the zero
// of its type, nil, or an empty array, slice, map or string; structs are
// always true. ok is false for a value with no truth.
func isTrue(v reflect.Value) (truth, ok bool) {
	if !v.IsValid() {
		return false, true
	}
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		truth = v.Len() > 0
	case reflect.Bool:
		truth = v.Bool()
	case reflect.Complex64, reflect.Complex128:
		truth = v.Complex() != 0
	case reflect.Chan, reflect.Func, reflect.Pointer, reflect.UnsafePointer, reflect.Interface:
		truth = !v.IsNil()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		truth = v.Int() != 0
	case reflect.Float32, reflect.Float64:
		truth = v.Float() != 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		truth = v.Uint() != 0
	case reflect.Struct:
		truth = true
	default:
		return false, false
	}
	return truth, true
}

func truth(v reflect.Value) bool {
	t, _ := isTrue(indirectInterface(v))
	return t
}

// indirect follows pointers and interfaces down to a value, or to the nil
// that stops it (then isNil, and v is that pointer or interface).
func indirect(v reflect.Value) (rv reflect.Value, isNil bool) {
	for ; v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface; v = v.Elem() {
		if v.IsNil() {
			return v, true
		}
	}
	return v, false
}

// indirectInterface is what an interface holds (invalid for nil); any
// other value is itself.
func indirectInterface(v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Interface {
		return v
	}
	if v.IsNil() {
		return reflect.Value{}
	}
	return v.Elem()
}

func (s *state) printValue(n parse.Node, v reflect.Value) {
	s.at(n)
	x, ok := printable(v)
	if !ok {
		s.errorf("can't print %s of type %s", n, v.Type())
	}
	if _, err := fmt.Fprint(s.w, x); err != nil {
		panic(writeError{err})
	}
}

// printable is v as the template prints it: what a pointer points to
// (*float64 prints the number), <no value> for nothing, and an error or
// Stringer (or a value whose pointer is one) as fmt prints it.
func printable(v reflect.Value) (any, bool) {
	if v.Kind() == reflect.Pointer {
		v, _ = indirect(v) // a nil pointer prints as fmt prints it
	}
	if !v.IsValid() {
		return "<no value>", true
	}
	if !v.Type().Implements(errorType()) && !v.Type().Implements(fmtStringerType()) {
		pt := reflect.PointerTo(v.Type())
		if v.CanAddr() && (pt.Implements(errorType()) || pt.Implements(fmtStringerType())) {
			v = v.Addr()
		} else if k := v.Kind(); k == reflect.Chan || k == reflect.Func {
			return nil, false
		}
	}
	if !v.CanInterface() {
		return nil, false
	}
	return v.Interface(), true
}

type keyValue struct{ key, value reflect.Value }

// sortedMap is m's entries in the order range visits them, fmt's order
// for printing maps: numbers and strings ascending, false before true,
// pointers and channels by address, structs and arrays field by field,
// interfaces by type and then value.
func sortedMap(m reflect.Value) []keyValue {
	kvs := make([]keyValue, 0, m.Len())
	for it := m.MapRange(); it.Next(); {
		kvs = append(kvs, keyValue{it.Key(), it.Value()})
	}
	slices.SortStableFunc(kvs, func(a, b keyValue) int { return compareKeys(a.key, b.key) })
	return kvs
}

func compareKeys(a, b reflect.Value) int {
	if a.Type() != b.Type() {
		return -1 // no order between types; anything but equal
	}
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.String:
		return cmp.Compare(a.String(), b.String())
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float())
	case reflect.Complex64, reflect.Complex128:
		x, y := a.Complex(), b.Complex()
		if c := cmp.Compare(real(x), real(y)); c != 0 {
			return c
		}
		return cmp.Compare(imag(x), imag(y))
	case reflect.Bool:
		x, y := a.Bool(), b.Bool()
		switch {
		case x == y:
			return 0
		case x:
			return 1
		}
		return -1
	case reflect.Pointer, reflect.UnsafePointer:
		return cmp.Compare(a.Pointer(), b.Pointer())
	case reflect.Chan:
		if c, ok := compareNil(a, b); ok {
			return c
		}
		return cmp.Compare(a.Pointer(), b.Pointer())
	case reflect.Struct:
		for i := range a.NumField() {
			if c := compareKeys(a.Field(i), b.Field(i)); c != 0 {
				return c
			}
		}
		return 0
	case reflect.Array:
		for i := range a.Len() {
			if c := compareKeys(a.Index(i), b.Index(i)); c != 0 {
				return c
			}
		}
		return 0
	case reflect.Interface:
		if c, ok := compareNil(a, b); ok {
			return c
		}
		if c := compareKeys(reflect.ValueOf(a.Elem().Type()), reflect.ValueOf(b.Elem().Type())); c != 0 {
			return c
		}
		return compareKeys(a.Elem(), b.Elem())
	}
	return 0 // map keys have no other kinds
}

// compareNil orders nil first, when either is.
func compareNil(a, b reflect.Value) (int, bool) {
	switch {
	case a.IsNil() && b.IsNil():
		return 0, true
	case a.IsNil():
		return -1, true
	case b.IsNil():
		return 1, true
	}
	return 0, false
}
