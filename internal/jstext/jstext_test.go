package jstext

import (
	"math"
	"testing"
)

func TestJSTextPrimitives(t *testing.T) {
	if got := Trim("\ufeff\u00a0 x \u3000\u2029"); got != "x" {
		t.Errorf("trim: %q", got)
	}
	if got := Trim("\u0085x\x1c"); got != "\u0085x\x1c" {
		t.Errorf("trim must keep NEL and U+001C: %q", got)
	}
	if UnitLen("a😀é") != 4 {
		t.Error("unitLen")
	}
	if got := ToLower("İSTANBUL ΟΔΟΣ"); got != "i̇stanbul οδος" {
		t.Errorf("lower: %q", got)
	}
	order := []string{"mem_a", "mem_a_", "mem_a_b", "mem_a-", "mem_a-b", "mem_a.b", "mem_a0", "mem_a9", "mem_aa", "mem_ab", "mem_b"}
	for i := 0; i+1 < len(order); i++ {
		if LocaleCompare(order[i], order[i+1]) >= 0 || LocaleCompare(order[i+1], order[i]) <= 0 {
			t.Errorf("%s should sort before %s", order[i], order[i+1])
		}
	}
	for _, pair := range [][2]string{{".gitignore", "contexts"}, {"e", "é"}, {"é", "f"}, {"a", "A"}, {"A", "b"},
		{"2026-07-26T20:00:00.000Z", "2026-07-27T00:00:00.000Z"}} {
		if LocaleCompare(pair[0], pair[1]) >= 0 {
			t.Errorf("%q should sort before %q", pair[0], pair[1])
		}
	}
	if !math.IsNaN(Number("NaN")) || Number("-0") != 0 {
		t.Error("jsNumber special values")
	}
}
