package pyjson

import (
	"math"
	"testing"
)

func hasNaN(v Value) bool {
	switch v.Kind {
	case Number:
		return !v.Num.IsInt && math.IsNaN(v.Num.F)
	case Array:
		for _, e := range v.Arr {
			if hasNaN(e) {
				return true
			}
		}
	case Object:
		for _, e := range v.Obj.Values() {
			if hasNaN(e) {
				return true
			}
		}
	}
	return false
}

func FuzzDecode(f *testing.F) {
	for _, tc := range pyDecodeOK {
		f.Add(tc.in)
	}
	for _, tc := range pyDecodeErr {
		f.Add(tc.in)
	}
	f.Add(`"\ud800"`)
	f.Add(`{"a": "\ud83d\ude00", "a": [1e5, -0, NaN]}`)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Decode(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Decode(%q): empty error message", s)
			}
			return
		}
		_ = Repr(v)
		_ = Truthy(v)
		compact, pretty := Compact(v), Pretty(v)
		v2, err := Decode(compact)
		if err != nil {
			t.Fatalf("Decode(Compact(Decode(%q))) = %v; compact %q", s, err, compact)
		}
		v3, err := Decode(pretty)
		if err != nil {
			t.Fatalf("Decode(Pretty(Decode(%q))) = %v; pretty %q", s, err, pretty)
		}
		if !hasNaN(v) {
			if !Equal(v, v2) || !Equal(v2, v) || !Equal(v, v3) {
				t.Fatalf("round trip changed %q: compact %q", s, compact)
			}
			if !Equal(v, v) {
				t.Fatalf("Equal not reflexive for %q", s)
			}
		}
		if got := Compact(v2); got != compact {
			t.Fatalf("Compact unstable for %q: %q then %q", s, compact, got)
		}
		if got := Pretty(v3); got != pretty {
			t.Fatalf("Pretty unstable for %q: %q then %q", s, pretty, got)
		}
		if got := Repr(v2); got != Repr(v) {
			t.Fatalf("Repr unstable for %q: %q then %q", s, Repr(v), got)
		}
	})
}
