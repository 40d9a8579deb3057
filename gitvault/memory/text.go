package memory

import (
	"math"
	"strings"

	"github.com/git-echoes/git-echoes/internal/jstext"
)

// The memory-specific rules built on the JavaScript string semantics of
// package jstext (ecc-conformance §2): the order of ids and timestamps, the
// search limit and the unsafe-character set.

// localeCompare is jstext.LocaleCompare with one more exact fast path:
// fixed-format ISO timestamps collate chronologically, which is byte order
// for equal shapes (ecc-conformance §2.4). Checking it before the slug fast
// path gives the same result: two such timestamps first differ in a digit
// (byte order there is slug order) or past the 'T', where the slug path
// gives up.
func localeCompare(a, b string) int {
	if isTimestampShape(a) && isTimestampShape(b) {
		return strings.Compare(a, b)
	}
	return jstext.LocaleCompare(a, b)
}

// NormalizeLimit applies the reference's search limit rule to a number
// produced by JavaScript Number(): max(1, min(n || 20, 100)), truncated.
func NormalizeLimit(n float64) int {
	if n == 0 || math.IsNaN(n) {
		n = 20
	}
	n = math.Max(1, math.Min(n, 100))
	return int(math.Trunc(n))
}

// ParseLimit is NormalizeLimit(Number(s)): the CLI --limit semantics.
func ParseLimit(s string) int { return NormalizeLimit(jstext.Number(s)) }

// isUnsafeRune: C0 controls, DEL and C1, bidi embeddings/overrides and
// isolates. The body allows TAB, LF and CR; callers decide.
func isUnsafeRune(r rune) bool {
	return r <= 0x1F || (r >= 0x7F && r <= 0x9F) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

func hasUnsafe(s string, allowWhitespaceControls bool) bool {
	for _, r := range s {
		if isUnsafeRune(r) {
			if allowWhitespaceControls && (r == '\t' || r == '\n' || r == '\r') {
				continue
			}
			return true
		}
	}
	return false
}
