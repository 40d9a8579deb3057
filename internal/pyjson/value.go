// Package pyjson is a JSON value model with Python's json semantics (the
// EchoesVault reference engine is Python): ordered objects, exact integers,
// Python float repr, NaN/Infinity literals, a decoder that accepts and
// rejects what json.loads does, and an encoder that writes byte-for-byte
// what json.dumps(..., ensure_ascii=False) writes. See
// echoes-conformance §2.6, echoes-conformance §2.7, echoes-conformance §2.8
// and echoes-conformance §2.9. The ECC memory vault follows JavaScript's
// JSON instead: that is package jsjson.
package pyjson

import (
	"math"
	"math/big"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String returns the lower-case name of the kind ("null", "bool", ...).
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "bool"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "invalid"
}

// Value is a decoded JSON value with Python json semantics.
// The zero Value is null.
type Value struct {
	Kind Kind
	B    bool    // Bool
	Num  Num     // Number
	S    string  // String (valid UTF-8)
	Arr  []Value // Array
	Obj  *Obj    // Object (nil is treated as an empty object)
}

// Num keeps an integer exactly (arbitrary size) or a float64 (including NaN,
// +Inf and -Inf from the Python literals NaN, Infinity and -Infinity).
// The zero Num is the float 0.0.
type Num struct {
	// IsInt reports whether the number is a Python int (I is used) rather
	// than a Python float (F is used).
	IsInt bool
	// I is the integer value when IsInt; nil is treated as 0.
	I *big.Int
	// F is the float value when !IsInt.
	F float64
}

// IntNum returns an integer Num.
func IntNum(i int64) Num { return Num{IsInt: true, I: big.NewInt(i)} }

// BigNum returns an integer Num holding a copy of i.
func BigNum(i *big.Int) Num { return Num{IsInt: true, I: new(big.Int).Set(i)} }

// FloatNum returns a float Num.
func FloatNum(f float64) Num { return Num{F: f} }

// BigInt returns the integer value (a new big.Int) for an integer Num, or the
// truncated value of a finite float (nil for NaN and infinities).
func (n Num) BigInt() *big.Int {
	if n.IsInt {
		if n.I == nil {
			return new(big.Int)
		}
		return new(big.Int).Set(n.I)
	}
	if math.IsNaN(n.F) || math.IsInf(n.F, 0) {
		return nil
	}
	i, _ := big.NewFloat(n.F).Int(nil)
	return i
}

// Int64 returns the value as an int64 when the Num is an integer that fits.
func (n Num) Int64() (int64, bool) {
	if !n.IsInt {
		return 0, false
	}
	if n.I == nil {
		return 0, true
	}
	if !n.I.IsInt64() {
		return 0, false
	}
	return n.I.Int64(), true
}

// Float64 returns the value as a float64. Integers are rounded to nearest;
// integers beyond the float64 range give ±Inf (Python would raise
// OverflowError). Callers needing exactness should use BigInt.
func (n Num) Float64() float64 {
	if !n.IsInt {
		return n.F
	}
	if n.I == nil {
		return 0
	}
	f, _ := new(big.Float).SetInt(n.I).Float64()
	return f
}

// IsZero reports whether the number equals zero (0, 0.0 or -0.0).
func (n Num) IsZero() bool {
	if n.IsInt {
		return n.I == nil || n.I.Sign() == 0
	}
	return n.F == 0
}

// String returns the JSON text of the number as Python's json.dumps writes it.
func (n Num) String() string {
	if n.IsInt {
		if n.I == nil {
			return "0"
		}
		return n.I.String()
	}
	return jsonFloat(n.F)
}

// Obj is an insertion-ordered object. Duplicate keys during decoding: the key
// keeps its first position and takes the value of its last occurrence (Python
// dict semantics). A nil *Obj behaves as an empty object for reading.
type Obj struct {
	keys []string
	vals []Value
	idx  map[string]int
}

// NewObj returns an empty object.
func NewObj() *Obj { return &Obj{} }

// objIndexFrom is the size from which an object keeps a key index; a
// smaller one is searched key by key (a map for each of the many small
// objects of a large document was most of the cost of building it).
const objIndexFrom = 16

// Set appends key with v, or replaces the value in place when key exists.
// It returns o for chaining.
func (o *Obj) Set(key string, v Value) *Obj {
	if o.idx == nil && len(o.keys) < objIndexFrom {
		for i, k := range o.keys {
			if k == key {
				o.vals[i] = v
				return o
			}
		}
		if o.keys == nil { // most objects have a few keys: one allocation for them
			o.keys, o.vals = make([]string, 0, 8), make([]Value, 0, 8)
		}
		o.keys = append(o.keys, key)
		o.vals = append(o.vals, v)
		return o
	}
	if o.idx == nil {
		o.idx = make(map[string]int, len(o.keys))
		for i, k := range o.keys {
			o.idx[k] = i
		}
	}
	if i, ok := o.idx[key]; ok {
		o.vals[i] = v
		return o
	}
	o.idx[key] = len(o.keys)
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	return o
}

// Get returns the value for key (exact, case-sensitive match).
func (o *Obj) Get(key string) (Value, bool) {
	if o == nil {
		return Value{}, false
	}
	if o.idx == nil {
		for i, k := range o.keys {
			if k == key {
				return o.vals[i], true
			}
		}
		return Value{}, false
	}
	i, ok := o.idx[key]
	if !ok {
		return Value{}, false
	}
	return o.vals[i], true
}

// Has reports whether key is present.
func (o *Obj) Has(key string) bool {
	_, ok := o.Get(key)
	return ok
}

// Delete removes key (keeping the order of the others) and reports whether it
// was present.
func (o *Obj) Delete(key string) bool {
	if o == nil {
		return false
	}
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			o.vals = append(o.vals[:i:i], o.vals[i+1:]...)
			o.idx = nil
			return true
		}
	}
	return false
}

// Keys returns the keys in order (a copy).
func (o *Obj) Keys() []string {
	if o == nil {
		return []string{}
	}
	return append([]string{}, o.keys...)
}

// Values returns the values in key order (a copy).
func (o *Obj) Values() []Value {
	if o == nil {
		return []Value{}
	}
	return append([]Value{}, o.vals...)
}

// Len returns the number of members.
func (o *Obj) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Clone returns a shallow copy of o (member values are shared).
func (o *Obj) Clone() *Obj {
	c := NewObj()
	if o == nil {
		return c
	}
	for i, k := range o.keys {
		c.Set(k, o.vals[i])
	}
	return c
}

// Str returns a string value.
func Str(s string) Value { return Value{Kind: String, S: s} }

// Boolean returns a bool value.
func Boolean(b bool) Value { return Value{Kind: Bool, B: b} }

// Int returns an integer value.
func Int(i int64) Value { return Value{Kind: Number, Num: IntNum(i)} }

// BigInt returns an integer value holding a copy of i.
func BigInt(i *big.Int) Value { return Value{Kind: Number, Num: BigNum(i)} }

// Float returns a float value.
func Float(f float64) Value { return Value{Kind: Number, Num: FloatNum(f)} }

// NullValue returns null.
func NullValue() Value { return Value{Kind: Null} }

// Arr returns an array of vs (never nil, so it encodes as []).
func Arr(vs ...Value) Value {
	if vs == nil {
		vs = []Value{}
	}
	return Value{Kind: Array, Arr: vs}
}

// ObjectValue returns an object value; a nil o becomes an empty object.
//
// (The brief also named this constructor Object, which collides with the Kind
// constant Object in Go; the constant keeps the name.)
func ObjectValue(o *Obj) Value {
	if o == nil {
		o = NewObj()
	}
	return Value{Kind: Object, Obj: o}
}

// Strs returns an array of strings (nil or empty gives []).
func Strs(ss []string) Value {
	vs := make([]Value, len(ss))
	for i, s := range ss {
		vs[i] = Str(s)
	}
	return Value{Kind: Array, Arr: vs}
}

// IsNull reports whether v is null.
func (v Value) IsNull() bool { return v.Kind == Null }

// AsString returns the string and true when v is a string.
func (v Value) AsString() (string, bool) { return v.S, v.Kind == String }

// Value returns o wrapped as an object Value (same as ObjectValue(o)).
func (o *Obj) Value() Value { return ObjectValue(o) }

// Get looks key up when v is an object.
func (v Value) Get(key string) (Value, bool) {
	if v.Kind != Object {
		return Value{}, false
	}
	return v.Obj.Get(key)
}
