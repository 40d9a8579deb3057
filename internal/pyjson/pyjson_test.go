package pyjson

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

func TestPythonDecodeEncodeRepr(t *testing.T) {
	for _, tc := range pyDecodeOK {
		v := testenv.MustDecode(t, Decode, tc.in)
		if got := Compact(v); got != tc.compact {
			t.Errorf("Compact(Decode(%q))\n got %q\nwant %q", tc.in, got, tc.compact)
		}
		if got := Pretty(v); got != tc.pretty {
			t.Errorf("Pretty(Decode(%q))\n got %q\nwant %q", tc.in, got, tc.pretty)
		}
		if got := Repr(v); got != tc.repr {
			t.Errorf("Repr(Decode(%q))\n got %q\nwant %q", tc.in, got, tc.repr)
		}
	}
}

func TestPythonDecodeErrors(t *testing.T) {
	for _, tc := range pyDecodeErr {
		_, err := Decode(tc.in)
		if err == nil {
			t.Errorf("Decode(%q) succeeded, want %q", tc.in, tc.err)
			continue
		}
		if err.Error() != tc.err {
			t.Errorf("Decode(%q)\n got %q\nwant %q", tc.in, err.Error(), tc.err)
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Decode(%q): error %T is not a *SyntaxError", tc.in, err)
		}
	}
}

func TestDecodeLoneSurrogate(t *testing.T) {
	cases := []struct{ in, want string }{
		{`"\ud800"`, `Unsupported lone surrogate escape \ud800 (lone surrogates are refused): line 1 column 2 (char 1)`},
		{`"\udc00"`, `Unsupported lone surrogate escape \udc00 (lone surrogates are refused): line 1 column 2 (char 1)`},
		{`["é", "x\ud83dy"]`, `Unsupported lone surrogate escape \ud83d (lone surrogates are refused): line 1 column 9 (char 8)`},
		// high followed by a non-low escape: the high one is lone, the next escape is decoded normally
		{`"\ud800\u0041"`, `Unsupported lone surrogate escape \ud800 (lone surrogates are refused): line 1 column 2 (char 1)`},
		// two highs: the first is reported
		{`{"k": "\udbff\ud800\udc00", "j": "\udfff"}`, `Unsupported lone surrogate escape \udbff (lone surrogates are refused): line 1 column 8 (char 7)`},
		// low then high: reversed order is not a pair
		{`"\ude00\ud83d"`, `Unsupported lone surrogate escape \ude00 (lone surrogates are refused): line 1 column 2 (char 1)`},
		{"{\n  \"a\": \"\\uDFFF\"\n}", `Unsupported lone surrogate escape \udfff (lone surrogates are refused): line 2 column 9 (char 10)`},
	}
	for _, tc := range cases {
		_, err := Decode(tc.in)
		if err == nil {
			t.Errorf("Decode(%q) succeeded", tc.in)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("Decode(%q)\n got %q\nwant %q", tc.in, err.Error(), tc.want)
		}
		if !strings.Contains(err.Error(), "lone surrogate") {
			t.Errorf("Decode(%q): %q lacks \"lone surrogate\"", tc.in, err)
		}
		var le *LoneSurrogateError
		if !errors.As(err, &le) {
			t.Errorf("Decode(%q): error %T is not a *LoneSurrogateError", tc.in, err)
		}
	}
	// A syntax error Python would report wins over the lone surrogate.
	for in, want := range map[string]string{
		`"\ud800" x`:              "Extra data: line 1 column 10 (char 9)",
		`["\ud800", ]`:            "Expecting value: line 1 column 12 (char 11)",
		`["\udc00"`:               "Expecting ',' delimiter: line 1 column 10 (char 9)",
		`"\ud800\udc0`:            `Invalid \uXXXX escape: line 1 column 9 (char 8)`,
		"[\"\\ud800\", \"\x01\"]": "Invalid control character at: line 1 column 13 (char 12)",
	} {
		_, err := Decode(in)
		if err == nil || err.Error() != want {
			t.Errorf("Decode(%q) = %v, want %q", in, err, want)
		}
	}
	// Valid pairs decode to the real rune.
	v := testenv.MustDecode(t, Decode, `"\ud83d\ude00\uD83D\uDE00"`)
	if v.S != "😀😀" {
		t.Errorf("surrogate pair decoded to %q", v.S)
	}
}

func TestDecodeInvalidUTF8(t *testing.T) {
	for _, in := range []string{"\"\xff\"", "\xc3", "[\"a\xed\xa0\x80\"]", "{\"\xc0\xaf\": 1}"} {
		_, err := Decode(in)
		if !errors.Is(err, ErrInvalidUTF8) || err.Error() != "invalid UTF-8" {
			t.Errorf("Decode(%q) = %v, want invalid UTF-8", in, err)
		}
	}
}

func TestDecodeNumbers(t *testing.T) {
	cases := []struct {
		in    string
		isInt bool
		repr  string
	}{
		{"1", true, "1"},
		{"-0", true, "0"},
		{"1.0", false, "1.0"},
		{"1E2", false, "100.0"},
		{"1e-2", false, "0.01"},
		{"-0.0", false, "-0.0"},
		{"123456789012345678901234567890", true, "123456789012345678901234567890"},
		{"-123456789012345678901234567890", true, "-123456789012345678901234567890"},
		{"1e400", false, "inf"},
		{"-1e400", false, "-inf"},
		{"1e-400", false, "0.0"},
		{"0e99999999999999999999", false, "0.0"},
		{"1e99999999999999999999", false, "inf"},
		{"NaN", false, "nan"},
		{"Infinity", false, "inf"},
		{"-Infinity", false, "-inf"},
	}
	for _, tc := range cases {
		v := testenv.MustDecode(t, Decode, tc.in)
		if v.Kind != Number || v.Num.IsInt != tc.isInt {
			t.Errorf("Decode(%q): kind %v isInt %v", tc.in, v.Kind, v.Num.IsInt)
		}
		if got := Repr(v); got != tc.repr {
			t.Errorf("Repr(Decode(%q)) = %q, want %q", tc.in, got, tc.repr)
		}
	}
	// Python's int_max_str_digits: 4300 digits decode exactly, 4301 fail.
	big4300 := strings.Repeat("7", 4300)
	v := testenv.MustDecode(t, Decode, "-"+big4300)
	if got := Compact(v); got != "-"+big4300 {
		t.Errorf("4300-digit integer did not round-trip")
	}
	_, err := Decode("[" + strings.Repeat("1", 4301) + "]")
	want := "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit"
	if err == nil || err.Error() != want {
		t.Errorf("4301-digit integer: got %v", err)
	}
	if n, ok := testenv.MustDecode(t, Decode, "-42").Num.Int64(); !ok || n != -42 {
		t.Errorf("Int64 = %d, %v", n, ok)
	}
	if _, ok := testenv.MustDecode(t, Decode, "1.0").Num.Int64(); ok {
		t.Error("Int64 of a float must report !ok")
	}
	if _, ok := testenv.MustDecode(t, Decode, "99999999999999999999").Num.Int64(); ok {
		t.Error("Int64 of a huge int must report !ok")
	}
	if f := testenv.MustDecode(t, Decode, "3").Num.Float64(); f != 3 {
		t.Errorf("Float64 = %v", f)
	}
}

func TestDecodeDepth(t *testing.T) {
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	testenv.MustDecode(t, Decode, ok)
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if _, err := Decode(deep); err == nil || !strings.Contains(err.Error(), "maximum recursion depth exceeded while decoding a JSON array") {
		t.Errorf("deep array: %v", err)
	}
	deepObj := strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1)
	if _, err := Decode(deepObj); err == nil || !strings.Contains(err.Error(), "JSON object") {
		t.Errorf("deep object: %v", err)
	}
	// Very deep input must not exhaust the stack.
	if _, err := Decode(strings.Repeat("[", 1_000_000)); err == nil {
		t.Error("million brackets decoded")
	}
}

func TestDuplicateKeys(t *testing.T) {
	v := testenv.MustDecode(t, Decode, `{"b": 1, "a": 2, "b": 3, "B": 4}`)
	if got := strings.Join(v.Obj.Keys(), ","); got != "b,a,B" {
		t.Errorf("keys = %s", got)
	}
	if b, _ := v.Obj.Get("b"); Compact(b) != "3" {
		t.Errorf("b = %s", Compact(b))
	}
	if _, ok := v.Obj.Get("A"); ok {
		t.Error("Get must be case-sensitive")
	}
	if B, ok := v.Get("B"); !ok || Compact(B) != "4" {
		t.Errorf("Value.Get(B) = %v %v", B, ok)
	}
}

func TestObj(t *testing.T) {
	o := NewObj().Set("z", Int(1)).Set("a", Str("x")).Set("z", Boolean(false))
	if o.Len() != 2 || strings.Join(o.Keys(), ",") != "z,a" {
		t.Fatalf("keys %v", o.Keys())
	}
	if got := Compact(ObjectValue(o)); got != `{"z": false, "a": "x"}` {
		t.Errorf("Compact = %s", got)
	}
	keys := o.Keys()
	keys[0] = "mutated"
	if o.Keys()[0] != "z" {
		t.Error("Keys must return a copy")
	}
	if !o.Delete("z") || o.Delete("z") || o.Len() != 1 || o.Has("z") || !o.Has("a") {
		t.Error("Delete misbehaves")
	}
	o.Set("z", NullValue())
	if got := Compact(o.Value()); got != `{"a": "x", "z": null}` {
		t.Errorf("after delete+set: %s", got)
	}
	c := o.Clone().Set("new", Int(1))
	if o.Len() != 2 || c.Len() != 3 {
		t.Error("Clone shares storage")
	}
	var nilObj *Obj
	if nilObj.Len() != 0 || len(nilObj.Keys()) != 0 || nilObj.Has("a") {
		t.Error("nil *Obj must read as empty")
	}
	if got := Pretty(Value{Kind: Object}); got != "{}\n" {
		t.Errorf("nil-object Pretty = %q", got)
	}
	var zero Obj
	zero.Set("k", Int(2))
	if v, ok := zero.Get("k"); !ok || Compact(v) != "2" {
		t.Error("zero Obj must be usable")
	}
}

func TestConstructorsAndPretty(t *testing.T) {
	o := NewObj().
		Set("ok", Boolean(true)).
		Set("n", Int(-7)).
		Set("f", Float(3)).
		Set("none", NullValue()).
		Set("empty", Strs(nil)).
		Set("list", Strs([]string{"a", "b"})).
		Set("arr", Arr()).
		Set("mixed", Arr(Int(1), Arr(), ObjectValue(nil), Str("<&>"))).
		Set("obj", ObjectValue(NewObj().Set("k", Float(math.NaN()))))
	wantPretty := `{
  "ok": true,
  "n": -7,
  "f": 3.0,
  "none": null,
  "empty": [],
  "list": [
    "a",
    "b"
  ],
  "arr": [],
  "mixed": [
    1,
    [],
    {},
    "<&>"
  ],
  "obj": {
    "k": NaN
  }
}
`
	if got := Pretty(ObjectValue(o)); got != wantPretty {
		t.Errorf("Pretty:\n%s\nwant:\n%s", got, wantPretty)
	}
	wantCompact := `{"ok": true, "n": -7, "f": 3.0, "none": null, "empty": [], "list": ["a", "b"], "arr": [], "mixed": [1, [], {}, "<&>"], "obj": {"k": NaN}}`
	if got := Compact(ObjectValue(o)); got != wantCompact {
		t.Errorf("Compact:\n%s\nwant:\n%s", got, wantCompact)
	}
	wantRepr := `{'ok': True, 'n': -7, 'f': 3.0, 'none': None, 'empty': [], 'list': ['a', 'b'], 'arr': [], 'mixed': [1, [], {}, '<&>'], 'obj': {'k': nan}}`
	if got := Repr(ObjectValue(o)); got != wantRepr {
		t.Errorf("Repr:\n%s\nwant:\n%s", got, wantRepr)
	}
	for _, l := range strings.Split(Pretty(ObjectValue(o)), "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing space in %q", l)
		}
	}
	if got := Compact(BigInt(new(big.Int).Lsh(big.NewInt(1), 100))); got != "1267650600228229401496703205376" {
		t.Errorf("BigInt = %s", got)
	}
	if Compact(Value{}) != "null" {
		t.Error("zero Value must be null")
	}
}

func TestFloats(t *testing.T) {
	for _, tc := range pyFloats {
		if got := FloatRepr(tc.f); got != tc.repr {
			t.Errorf("FloatRepr(%v) = %q, want %q", tc.f, got, tc.repr)
		}
		if got := Compact(Float(tc.f)); got != tc.json {
			t.Errorf("Compact(Float(%v)) = %q, want %q", tc.f, got, tc.json)
		}
		if got := Repr(Float(tc.f)); got != tc.repr {
			t.Errorf("Repr(Float(%v)) = %q, want %q", tc.f, got, tc.repr)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range pyQuote {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Compact(Str(tc.in)); got != tc.want {
			t.Errorf("Compact(Str(%q)) = %q, want %q", tc.in, got, tc.want)
		}
		if v, err := Decode(tc.want); err != nil || v.S != tc.in {
			t.Errorf("Decode(Quote(%q)) = %q, %v", tc.in, v.S, err)
		}
	}
}

func TestReprString(t *testing.T) {
	for _, tc := range pyReprStr {
		if got := ReprString(tc.in); got != tc.want {
			t.Errorf("ReprString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestEqual(t *testing.T) {
	for _, tc := range pyEqual {
		a, b := testenv.MustDecode(t, Decode, tc.a), testenv.MustDecode(t, Decode, tc.b)
		if got := Equal(a, b); got != tc.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := Equal(b, a); got != tc.want {
			t.Errorf("Equal(%s, %s) = %v, want %v (swapped)", tc.b, tc.a, got, tc.want)
		}
	}
	marker := testenv.MustDecode(t, Decode, `{"protocolVersion": "1.0.0", "version": 1.0, "flags": [true]}`)
	want := ObjectValue(NewObj().Set("flags", Arr(Int(1))).Set("version", Int(1)).Set("protocolVersion", Str("1.0.0")))
	if !Equal(marker, want) {
		t.Error("marker comparison across int/float/bool and key order failed")
	}
}

func TestTruthy(t *testing.T) {
	for _, tc := range pyTruthy {
		if got := Truthy(testenv.MustDecode(t, Decode, tc.in)); got != tc.want {
			t.Errorf("Truthy(%s) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if Truthy(Value{Kind: Object}) || Truthy(Arr()) || Truthy(Strs(nil)) || !Truthy(Int(3)) {
		t.Error("constructor truthiness")
	}
}
