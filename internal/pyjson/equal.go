package pyjson

import (
	"math"
	"math/big"
)

// Truthy reports Python truthiness (echoes-conformance §2.7): null, false, 0, 0.0, -0.0, "",
// [] and {} are falsy; everything else (NaN included) is truthy.
func Truthy(v Value) bool {
	switch v.Kind {
	case Null:
		return false
	case Bool:
		return v.B
	case Number:
		return !v.Num.IsZero()
	case String:
		return v.S != ""
	case Array:
		return len(v.Arr) > 0
	case Object:
		return v.Obj.Len() > 0
	}
	return false
}

// Equal reports Python a == b for decoded JSON values (echoes-conformance §2.7): numbers compare
// exactly by value across int, float and bool (true == 1 == 1.0, false == 0,
// 2**53+1 != 9007199254740992.0), NaN != NaN, strings compare exactly, arrays
// element by element, objects as key sets plus values ignoring key order.
//
// Python compares container members with an identity shortcut, and json.loads
// returns one shared NaN object for every NaN literal, so [NaN] == [NaN] is
// True in Python while NaN == NaN is False. Equal reproduces that: NaN members
// inside arrays and objects are equal to each other, a top-level NaN is not.
func Equal(a, b Value) bool { return equal(a, b, false) }

func equal(a, b Value, member bool) bool {
	an, aNum := numeric(a)
	bn, bNum := numeric(b)
	if aNum || bNum {
		if !aNum || !bNum {
			return false
		}
		if member && !an.IsInt && !bn.IsInt && math.IsNaN(an.F) && math.IsNaN(bn.F) {
			return true
		}
		return numEqual(an, bn)
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Null:
		return true
	case String:
		return a.S == b.S
	case Array:
		if len(a.Arr) != len(b.Arr) {
			return false
		}
		for i := range a.Arr {
			if !equal(a.Arr[i], b.Arr[i], true) {
				return false
			}
		}
		return true
	case Object:
		if a.Obj.Len() != b.Obj.Len() {
			return false
		}
		if a.Obj == nil {
			return true
		}
		for i, k := range a.Obj.keys {
			bv, ok := b.Obj.Get(k)
			if !ok || !equal(a.Obj.vals[i], bv, true) {
				return false
			}
		}
		return true
	}
	return false
}

// numeric returns the number view of a bool or number value.
func numeric(v Value) (Num, bool) {
	switch v.Kind {
	case Number:
		return v.Num, true
	case Bool:
		if v.B {
			return IntNum(1), true
		}
		return IntNum(0), true
	}
	return Num{}, false
}

func numEqual(a, b Num) bool {
	switch {
	case a.IsInt && b.IsInt:
		return bigOrZero(a.I).Cmp(bigOrZero(b.I)) == 0
	case !a.IsInt && !b.IsInt:
		return a.F == b.F
	case a.IsInt:
		return intFloatEqual(bigOrZero(a.I), b.F)
	default:
		return intFloatEqual(bigOrZero(b.I), a.F)
	}
}

var zeroInt = new(big.Int)

func bigOrZero(i *big.Int) *big.Int {
	if i == nil {
		return zeroInt
	}
	return i
}

// intFloatEqual compares exactly, like Python's int/float comparison.
func intFloatEqual(i *big.Int, f float64) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
		return false
	}
	fi, _ := big.NewFloat(f).Int(nil)
	return fi.Cmp(i) == 0
}
