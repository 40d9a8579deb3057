package frontmatter

import (
	"reflect"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/pytext"
)

// FuzzMatchesConflictRe checks the byte scanner against the regexp it
// replaces on the hot path.
func FuzzMatchesConflictRe(f *testing.F) {
	for _, s := range []string{"", "=======", "a\n=======\nb", "=======\r\n", "<<<<<<< x", "<<<<<<<x", "<<<<<<<",
		">>>>>>> \n", "x\n>>>>>>>", "========", " =======", "<<<<<<<<", "a\n<<<<<<< ours\r\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := MatchesConflictRe(s), ConflictRe().MatchString(s); got != want {
			t.Fatalf("MatchesConflictRe(%q) = %v, regexp says %v", s, got, want)
		}
	})
}

// findConflictMarkersRe is FindConflictMarkers as it was before its fast
// path: the regexp searched on every text.
func findConflictMarkersRe(text string) []Marker {
	u := pytext.UniversalNewlines(text)
	start := len(u) - len(strings.TrimLeftFunc(u, pytext.IsSpace))
	norm := pytext.Strip(u) + "\n"
	var out []Marker
	for _, m := range ConflictRe().FindAllStringIndex(norm, -1) {
		out = append(out, Marker{Line: 1 + strings.Count(u[:start+m[0]], "\n"), Text: norm[m[0]:m[1]]})
	}
	return out
}

// FuzzFindConflictMarkers holds FindConflictMarkers, with its scan that
// skips the regexp on clean texts, to the regexp's own list.
func FuzzFindConflictMarkers(f *testing.F) {
	for _, s := range []string{"", "=======", " \n=======\n ", "a\r\n=======\r\nb", "=======\r", "\r=======",
		"<<<<<<< ours\n", "\u00a0=======", "=======\u00a0", "\v>>>>>>>\f", "x\n>>>>>>> y\r\n", "<<<<<<<\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := FindConflictMarkers(s), findConflictMarkersRe(s)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("FindConflictMarkers(%q) = %+v, the regexp finds %+v", s, got, want)
		}
	})
}
