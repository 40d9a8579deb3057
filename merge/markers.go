// Package merge holds the conflict-marker detection of the EchoesVault
// Protocol (§9 step 3) and a page-aware three-way merge driver for git.
package merge

import (
	"regexp"
	"strings"
)

// ConflictRe is the protocol's conflict-marker regex (§9 step 3). Go's
// regexp with (?m) has exactly the semantics of the reference: ^ matches at
// the start and after each \n, $ before each \n and at the end, and . matches
// anything but \n.
var ConflictRe = regexp.MustCompile(`(?m)^(?:<<<<<<<(?: .*)?|=======|>>>>>>>(?: .*)?)$`)

// isPySpace reports whether r is in the protocol's whitespace set W (§2.1),
// which is Python's str.isspace and differs from unicode.IsSpace.
func isPySpace(r rune) bool {
	switch {
	case r >= 0x09 && r <= 0x0D, r >= 0x1C && r <= 0x20:
		return true
	case r == 0x85, r == 0xA0, r == 0x1680, r >= 0x2000 && r <= 0x200A,
		r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F, r == 0x3000:
		return true
	}
	return false
}

// pyStrip removes characters of W from both ends of s (§2.1).
func pyStrip(s string) string { return strings.TrimFunc(s, isPySpace) }

// normalizePage is the text the protocol stores and checks: strip(content)
// plus one "\n" (§9 step 2).
func normalizePage(s string) string { return pyStrip(s) + "\n" }

// universalNewlines replaces every \r\n with \n, then every remaining \r
// with \n (§2.3).
func universalNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// HasConflictMarkers applies §9 step 3 exactly: the regex is searched in the
// normalized form of text (step 2; normalizing already normalized text is a
// no-op), so CRLF text with "=======\r\n" is not matched, as in the
// reference engine. Use HasConflictMarkersAnyNewline for the recommended
// check that closes that gap.
func HasConflictMarkers(text string) bool {
	return ConflictRe.MatchString(normalizePage(text))
}

// HasConflictMarkersAnyNewline reports whether §9 step 3 matches on the
// normalized text or on its universal-newline form (\r\n -> \n, then
// \r -> \n). This refuses exactly the pages that would become invalid when
// read back (the CRLF Quirk of §9).
func HasConflictMarkersAnyNewline(text string) bool {
	return HasConflictMarkers(text) || HasConflictMarkers(universalNewlines(text))
}

// Marker is one conflict-marker line.
type Marker struct {
	// Line is the 1-based line number in the universal-newline form of the
	// text, which is also the line number an editor shows.
	Line int
	// Text is the marker line as matched, without its line ending.
	Text string
}

// FindConflictMarkers lists every line that makes HasConflictMarkersAnyNewline
// true, with its line number, for annotations. Lines are counted on the
// universal-newline form of text; leading and trailing whitespace of the
// whole text is ignored the way §9 step 2 ignores it, so an indented marker
// on the first line is reported just as the validation sees it.
func FindConflictMarkers(text string) []Marker {
	u := universalNewlines(text)
	start := len(u) - len(strings.TrimLeftFunc(u, isPySpace))
	norm := pyStrip(u) + "\n"
	var out []Marker
	for _, m := range ConflictRe.FindAllStringIndex(norm, -1) {
		out = append(out, Marker{
			Line: 1 + strings.Count(u[:start+m[0]], "\n"),
			Text: norm[m[0]:m[1]],
		})
	}
	return out
}
