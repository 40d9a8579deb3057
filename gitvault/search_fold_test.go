package gitvault

import (
	"strings"
	"testing"
)

func FuzzContainsFoldASCII(f *testing.F) {
	f.Add("Hello World", "world")
	f.Add("xxQJxx", "qj")
	f.Add("ab-cd", "b-c")
	f.Fuzz(func(t *testing.T, s, needle string) {
		if !isASCIIString(s) || !isASCIIString(needle) {
			return
		}
		needle = strings.ToLower(needle)
		if got, want := containsFoldASCII(s, needle), strings.Contains(strings.ToLower(s), needle); got != want {
			t.Fatalf("containsFoldASCII(%q, %q) = %v, want %v", s, needle, got, want)
		}
	})
}
