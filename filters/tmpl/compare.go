package tmpl

import (
	"fmt"
	"reflect"
)

// Comparisons follow text/template: basic kinds compare by value whatever
// their exact types (int8 with int64, and signed with unsigned integers),
// other kinds only with ==, and only against the same kind or nil.

// compareError is a comparison's error: constants, not errors.New
// variables, which would be start-up work (see errorType).
type compareError string

func (e compareError) Error() string { return string(e) }

const (
	errBadComparisonType compareError = "invalid type for comparison"
	errNoComparison      compareError = "missing argument for comparison"
)

type kind int

const (
	invalidKind kind = iota
	boolKind
	complexKind
	intKind
	floatKind
	stringKind
	uintKind
)

func basicKind(v reflect.Value) (kind, error) {
	switch v.Kind() {
	case reflect.Bool:
		return boolKind, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intKind, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintKind, nil
	case reflect.Float32, reflect.Float64:
		return floatKind, nil
	case reflect.Complex64, reflect.Complex128:
		return complexKind, nil
	case reflect.String:
		return stringKind, nil
	}
	return invalidKind, errBadComparisonType
}

// isNilValue reports whether v is nil, typed or not.
func isNilValue(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	switch v.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice:
		return v.IsNil()
	}
	return false
}

// eq is a == b || a == c || ...
func eq(a []reflect.Value) (bool, error) {
	x := indirectInterface(a[0])
	if len(a) == 1 {
		return false, errNoComparison
	}
	kx, _ := basicKind(x)
	for _, y := range a[1:] {
		y = indirectInterface(y)
		ky, _ := basicKind(y)
		truth := false
		switch {
		case kx == intKind && ky == uintKind:
			truth = x.Int() >= 0 && uint64(x.Int()) == y.Uint()
		case kx == uintKind && ky == intKind:
			truth = y.Int() >= 0 && x.Uint() == uint64(y.Int())
		case kx != ky:
			if x.IsValid() && y.IsValid() {
				return false, fmt.Errorf("incompatible types for comparison: %v and %v", x.Type(), y.Type())
			}
		case kx == boolKind:
			truth = x.Bool() == y.Bool()
		case kx == complexKind:
			truth = x.Complex() == y.Complex()
		case kx == floatKind:
			truth = x.Float() == y.Float()
		case kx == intKind:
			truth = x.Int() == y.Int()
		case kx == stringKind:
			truth = x.String() == y.String()
		case kx == uintKind:
			truth = x.Uint() == y.Uint()
		default: // neither basic: same kind, or nil
			if x.Kind() != y.Kind() && x.IsValid() && y.IsValid() {
				return false, fmt.Errorf("non-comparable types %s: %v, %s: %v", x, x.Type(), y.Type(), y)
			}
			if isNilValue(x) || isNilValue(y) {
				truth = isNilValue(x) == isNilValue(y)
			} else {
				if !y.Type().Comparable() {
					return false, fmt.Errorf("non-comparable type %s: %v", y, y.Type())
				}
				truth = x.Interface() == y.Interface()
			}
		}
		if truth {
			return true, nil
		}
	}
	return false, nil
}

func ne(a []reflect.Value) (bool, error) {
	equal, err := eq(a)
	return !equal, err
}

func lt(a []reflect.Value) (bool, error) {
	x, y := indirectInterface(a[0]), indirectInterface(a[1])
	kx, err := basicKind(x)
	if err != nil {
		return false, err
	}
	ky, err := basicKind(y)
	if err != nil {
		return false, err
	}
	switch {
	case kx == intKind && ky == uintKind:
		return x.Int() < 0 || uint64(x.Int()) < y.Uint(), nil
	case kx == uintKind && ky == intKind:
		return y.Int() >= 0 && x.Uint() < uint64(y.Int()), nil
	case kx != ky:
		return false, fmt.Errorf("incompatible types for comparison: %v and %v", x.Type(), y.Type())
	}
	switch kx {
	case floatKind:
		return x.Float() < y.Float(), nil
	case intKind:
		return x.Int() < y.Int(), nil
	case stringKind:
		return x.String() < y.String(), nil
	case uintKind:
		return x.Uint() < y.Uint(), nil
	}
	return false, errBadComparisonType // bool, complex
}

func le(a []reflect.Value) (bool, error) {
	less, err := lt(a)
	if less || err != nil {
		return less, err
	}
	return eq(a)
}

func gt(a []reflect.Value) (bool, error) {
	lessOrEqual, err := le(a)
	if err != nil {
		return false, err
	}
	return !lessOrEqual, nil
}

func ge(a []reflect.Value) (bool, error) {
	less, err := lt(a)
	if err != nil {
		return false, err
	}
	return !less, nil
}
