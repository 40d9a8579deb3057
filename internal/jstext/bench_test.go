package jstext

import (
	"strings"
	"testing"
)

// BenchmarkToLower covers the three paths of ToLower: ASCII, non-ASCII
// text without a capital sigma, and Greek text with word-final sigmas.
func BenchmarkToLower(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"ascii", strings.Repeat("The Quick Brown Fox Jumps Over The Lazy Dog. ", 20)},
		{"latin", strings.Repeat("Überprüfung der Maßnahmen für Öffentliche Straßen. ", 20)},
		{"greek", strings.Repeat("Ο ΌΣΟΣ ΧΡΟΝΟΣ ΤΗΣ ΟΔΟΥ ΕΊΝΑΙ ΣΎΝΤΟΜΟΣ. ", 20)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				ToLower(c.s)
			}
		})
	}
}
