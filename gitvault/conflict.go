package gitvault

import "github.com/git-echoes/git-echoes/internal/frontmatter"

// HasConflictMarker reports whether the protocol's conflict regex matches
// text as given (echoes-conformance §9 step 3).
func HasConflictMarker(text string) bool { return frontmatter.MatchesConflictRe(text) }

// hasConflictMarkerAnyNewline also checks the universal-newline form, so a
// proposed page with "=======\r\n" (which the reference accepts and then can
// never index again) is refused.
func hasConflictMarkerAnyNewline(text string) bool {
	return frontmatter.HasConflictMarkersAnyNewline(text)
}
