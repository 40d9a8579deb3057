package memory

import (
	"strings"

	"github.com/git-echoes/git-echoes/internal/jstext"
)

// SanitizeTerminal strips terminal control data from s for text-mode
// display (ecc-conformance §16): ESC and C1 sequences (CSI, OSC, DCS, SOS, PM,
// APC) are removed whole, then remaining C0 controls except TAB and LF,
// DEL, C1 and bidi marks are dropped. WTF-8 lone surrogates become U+FFFD,
// as a terminal write would encode them.
func SanitizeTerminal(s string) string {
	rs := []rune(jstext.ReplaceSurrogates(s))
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == 0x1B && i+1 < len(rs):
			next := rs[i+1]
			switch {
			case next == 'P' || next == 'X' || next == ']' || next == '^' || next == '_':
				i = skipString(rs, i+2)
			case next == '[':
				i = skipCSI(rs, i+2)
			default:
				j := i + 1
				for j < len(rs) && rs[j] >= 0x20 && rs[j] <= 0x2F {
					j++
				}
				if j < len(rs) && rs[j] >= 0x30 && rs[j] <= 0x7E {
					j++
				}
				i = j - 1
			}
		case r == 0x90 || r == 0x98 || r == 0x9D || r == 0x9E || r == 0x9F:
			i = skipString(rs, i+1)
		case r == 0x9B:
			i = skipCSI(rs, i+1)
		case (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7F && r <= 0x9F) ||
			r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069):
			// dropped
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// skipString returns the index of the last rune of a control string that
// starts at j: up to and including BEL, ST (0x9C) or ESC \, or the end.
func skipString(rs []rune, j int) int {
	for ; j < len(rs); j++ {
		switch {
		case rs[j] == 0x07 || rs[j] == 0x9C:
			return j
		case rs[j] == 0x1B && j+1 < len(rs) && rs[j+1] == '\\':
			return j + 1
		}
	}
	return len(rs) - 1
}

// skipCSI returns the index of the final byte (0x40-0x7E) of a CSI
// sequence starting at j, or the end.
func skipCSI(rs []rune, j int) int {
	for ; j < len(rs); j++ {
		if rs[j] >= 0x40 && rs[j] <= 0x7E {
			return j
		}
	}
	return len(rs) - 1
}
