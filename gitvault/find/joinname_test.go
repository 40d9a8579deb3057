package find

import (
	"path/filepath"
	"testing"
)

// TestJoinNameIsJoin: joinName is filepath.Join for every clean directory
// and listed name the stat pass meets, and for the odd ones it hands to
// Join (on this OS's separators and volumes).
func TestJoinNameIsJoin(t *testing.T) {
	dirs := []string{"/", "/a", "/a/b", ".", "..", "../x", "a", "a/b", "", `C:\`, `C:\v\pages`, "C:", "C:.", "C:a", `\\srv\share`, `\\srv\share\p`}
	names := []string{"a.md", "-x.md", "é.md", ".md", "..md", ".", "..", "", "a/b.md", `a\b.md`, "a b.md"}
	for _, d := range dirs {
		d = filepath.Clean(d)
		for _, n := range names {
			if got, want := joinName(d, n), filepath.Join(d, n); got != want {
				t.Errorf("joinName(%q, %q) = %q, filepath.Join %q", d, n, got, want)
			}
		}
	}
}

func FuzzJoinName(f *testing.F) {
	f.Add("/a/b", "c.md")
	f.Add(".", "x.md")
	f.Add(`C:\`, "x.md")
	f.Fuzz(func(t *testing.T, dir, name string) {
		dir = filepath.Clean(dir)
		if got, want := joinName(dir, name), filepath.Join(dir, name); got != want {
			t.Fatalf("joinName(%q, %q) = %q, filepath.Join %q", dir, name, got, want)
		}
	})
}
