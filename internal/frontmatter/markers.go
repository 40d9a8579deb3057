package frontmatter

import (
	"regexp"
	"strings"
	"sync"

	"github.com/git-echoes/git-echoes/internal/pytext"
)

// ConflictRe is the protocol's conflict-marker regex (echoes-conformance §9 step 3). Go's
// regexp with (?m) has exactly the semantics of the reference: ^ matches at
// the start and after each \n, $ before each \n and at the end, and . matches
// anything but \n.
var ConflictRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(?:<<<<<<<(?: .*)?|=======|>>>>>>>(?: .*)?)$`) })

// MatchesConflictRe reports whether ConflictRe matches text, with exactly
// the regexp's semantics, by scanning bytes: it runs over every page of a
// vault on each index render, where the regexp engine would dominate.
func MatchesConflictRe(text string) bool {
	for i := 0; i < len(text); {
		rest := text[i:]
		if len(rest) >= 7 {
			switch c := rest[0]; c {
			case '<', '>':
				if allByte(rest[:7], c) && (len(rest) == 7 || rest[7] == '\n' || rest[7] == ' ') {
					return true
				}
			case '=':
				if allByte(rest[:7], '=') && (len(rest) == 7 || rest[7] == '\n') {
					return true
				}
			}
		}
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return false
		}
		i += nl + 1
	}
	return false
}

func allByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			return false
		}
	}
	return true
}

// HasConflictMarkers applies echoes-conformance §9 step 3 exactly: the regex is searched in the
// normalized form of text (step 2; normalizing already normalized text is a
// no-op), so CRLF text with "=======\r\n" is not matched, as in the
// reference engine. Use HasConflictMarkersAnyNewline for the recommended
// check that closes that gap.
func HasConflictMarkers(text string) bool {
	// Matching on strip(text) is the same as on strip(text)+"\n": $ matches
	// at the end of the text as it does before a final newline.
	return MatchesConflictRe(pytext.Strip(text))
}

// HasConflictMarkersAnyNewline reports whether echoes-conformance §9 step 3 matches on the
// normalized text or on its universal-newline form (\r\n -> \n, then
// \r -> \n). This refuses exactly the pages that would become invalid when
// read back (the CRLF Quirk of echoes-conformance §9).
func HasConflictMarkersAnyNewline(text string) bool {
	if HasConflictMarkers(text) {
		return true
	}
	return strings.ContainsRune(text, '\r') && HasConflictMarkers(pytext.UniversalNewlines(text))
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
// whole text is ignored the way echoes-conformance §9 step 2 ignores it, so an indented marker
// on the first line is reported just as the validation sees it.
//
// A text without a marker, every clean page of a gate's pass, is told by
// MatchesConflictRe on the stripped form, with no copy and no regexp: the
// regexp's search of every page was a seventh of a check --staged of
// 10,000 pages (issue 19). Searching strip(u) and strip(u)+"\n" find the
// same (see HasConflictMarkers), and FuzzFindConflictMarkers holds this
// to the regexp's answer on the text as given.
func FindConflictMarkers(text string) []Marker {
	u := pytext.UniversalNewlines(text)
	stripped := pytext.Strip(u)
	if !MatchesConflictRe(stripped) {
		return nil
	}
	start := len(u) - len(strings.TrimLeftFunc(u, pytext.IsSpace))
	norm := stripped + "\n"
	var out []Marker
	for _, m := range ConflictRe().FindAllStringIndex(norm, -1) {
		out = append(out, Marker{
			Line: 1 + strings.Count(u[:start+m[0]], "\n"),
			Text: norm[m[0]:m[1]],
		})
	}
	return out
}
