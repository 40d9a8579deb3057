package gitrepo

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

// BenchmarkIgnored measures exclude checks for 1,000 paths spread over a
// generated repository of 100,000 files. "cold" includes Open and every
// .gitignore read along the paths; "warm" reuses the per-directory cache.
// Neither may depend on the size of the work tree beyond those paths.
func BenchmarkIgnored(b *testing.B) {
	sb := gitrepotest.New(b)
	repo := gitrepotest.GenerateLarge(b, sb, filepath.Join(b.TempDir(), "large"), 100_000, 42)
	rnd := gitrepotest.NewRand(7)
	paths := make([]string, 1000)
	for i := range paths {
		paths[i] = gitrepotest.Pick(rnd, repo.Files)
	}
	// Not timed: the generated layout must be judged as git judges it.
	out, err := sb.Run(repo.Top, nil, []byte(strings.Join(paths, "\x00")+"\x00"), "check-ignore", "--no-index", "-z", "--stdin")
	if err != nil && !strings.Contains(err.Error(), "exit status 1") {
		b.Fatal(err)
	}
	gitIgnored := map[string]bool{}
	for _, p := range splitZ(out) {
		gitIgnored[p] = true
	}
	r, err := Open(repo.Top)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range paths {
		if ign, err := r.Ignored(p, false); err != nil || ign != gitIgnored[p] {
			b.Fatalf("Ignored(%q) = %v, %v; git says %v", p, ign, err, gitIgnored[p])
		}
	}
	b.Run("cold", func(b *testing.B) {
		ignored := 0
		for b.Loop() {
			r, err := Open(repo.Top)
			if err != nil {
				b.Fatal(err)
			}
			ignored = 0
			for _, p := range paths {
				ign, err := r.Ignored(p, false)
				if err != nil {
					b.Fatal(err)
				}
				if ign {
					ignored++
				}
			}
		}
		b.ReportMetric(float64(ignored), "ignored/op")
	})
	b.Run("warm", func(b *testing.B) {
		r, err := Open(repo.Top)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			for _, p := range paths {
				if _, err := r.Ignored(p, false); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
