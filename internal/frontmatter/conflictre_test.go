package frontmatter

import "testing"

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
