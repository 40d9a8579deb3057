package gitvault

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/vaultgen"
)

// BenchmarkHydrate10k measures hydrate on the 10,000-page vault as the CLI
// runs it (a new engine, that is a new process, per run): without the page
// cache, with the cache file removed first (cold: everything read, the
// file written), on an unchanged vault, and after one page changed; next to
// a bare pass that lists the directory and stamps every page (the floor
// the cache aims at). scripts/bench.sh measures the real binary on 10,000
// and 100,000 pages.
func BenchmarkHydrate10k(b *testing.B) { benchHydrate(b, vaultgen.Default, true) }

// BenchmarkHydrate100k is the pair issue 19 sets a target on: hydrate
// after one changed page on 100,000 pages ("one-changed") next to the
// bare stat pass of the same files ("stat-pass").
func BenchmarkHydrate100k(b *testing.B) {
	opt := vaultgen.Default
	opt.Pages = 100_000
	benchHydrate(b, opt, false)
}

func benchHydrate(b *testing.B, opt vaultgen.Spec, all bool) {
	// The cache file is kept only in a Git repository (loadPageCache).
	root := gitrepotest.New(b).Init(filepath.Join(b.TempDir(), "repo"))
	if err := vaultgen.Write(root, opt); err != nil {
		b.Fatal(err)
	}
	e, err := Open(Options{Workspace: root})
	if err != nil {
		b.Fatal(err)
	}
	path, err := e.WS.pageCachePath()
	if err != nil {
		b.Fatal(err)
	}
	hydrateOnce := func(noCache bool) {
		f, err := Open(Options{Workspace: root})
		if err != nil {
			b.Fatal(err)
		}
		f.noCache = noCache
		if _, err := f.Hydrate(); err != nil {
			b.Fatal(err)
		}
	}
	// Settle: pages written less than a granule ago are racy and re-read.
	hydrateOnce(false)
	time.Sleep(time.Duration(cacheGranule) + 100*time.Millisecond)
	hydrateOnce(false)
	if all { // the 100,000-page benchmark measures the pair only
		b.Run("no-cache", func(b *testing.B) {
			for b.Loop() {
				hydrateOnce(true)
			}
		})
		b.Run("cold", func(b *testing.B) {
			for b.Loop() {
				_ = os.Remove(path)
				hydrateOnce(false)
			}
		})
	}
	hydrateOnce(false)
	time.Sleep(time.Duration(cacheGranule) + 100*time.Millisecond)
	hydrateOnce(false)
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			hydrateOnce(false)
		}
	})
	changed := filepath.Join(e.WS.Pages, "page-00005.md")
	orig, err := os.ReadFile(changed)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.WriteFile(changed, orig, 0o644) })
	b.Run("one-changed", func(b *testing.B) {
		n := 0
		for b.Loop() {
			n++
			if err := os.WriteFile(changed, append(orig, []byte("\nedit "+itoa(n)+"\n")...), 0o644); err != nil {
				b.Fatal(err)
			}
			hydrateOnce(false)
		}
	})
	b.Run("stat-pass", func(b *testing.B) {
		for b.Loop() {
			names, err := DirSource{e.WS.Pages}.PageNames()
			if err != nil {
				b.Fatal(err)
			}
			d, err := fsx.OpenDir(e.WS.Pages)
			if err != nil {
				b.Fatal(err)
			}
			Parallel(len(names), func(i int) { _, _ = d.Stamp(names[i]) })
			d.Close()
		}
	})
}
