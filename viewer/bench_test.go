package viewer

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/testenv"
	"github.com/git-echoes/git-echoes/internal/vaultgen"
)

// Benchmarks of every view on the 10,000-page vault of the issues
// (vaultgen.Default, about 40 MB), and of the graph with 2,000 linked
// nodes (issue 14: every view well under a second; the graph responsive
// with 2,000 nodes). They measure; no test asserts a duration.

func benchServer(b *testing.B, spec vaultgen.Spec, links int) (*Server, string) {
	b.Helper()
	g := testenv.TempGit(b)
	g.Setenv(b)
	root := filepath.Join(b.TempDir(), "ws")
	if err := os.MkdirAll(root, 0o755); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("git", "init", "-q", root)
	cmd.Env = g.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	if err := vaultgen.Write(root, spec); err != nil {
		b.Fatal(err)
	}
	eng, err := gitvault.Open(gitvault.Options{Workspace: root})
	if err != nil {
		b.Fatal(err)
	}
	// Wikilinks: page i links to the next `links` pages (a ring), so every
	// page has links and backlinks.
	names, _ := os.ReadDir(eng.WS.Pages)
	var slugs []string
	for _, n := range names {
		slugs = append(slugs, strings.TrimSuffix(n.Name(), ".md"))
	}
	for i, s := range slugs {
		p := filepath.Join(eng.WS.Pages, s+".md")
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		var extra strings.Builder
		for k := 1; k <= links; k++ {
			fmt.Fprintf(&extra, "\nSee [[%s]].", slugs[(i+k*7)%len(slugs)])
		}
		if err := os.WriteFile(p, append(data, extra.String()...), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	roots, err := memory.ResolveRoots(memory.RootOptions{Cwd: root, Home: g.Home})
	if err != nil {
		b.Fatal(err)
	}
	// As git echoes serve runs it: with change notification (watch.go).
	w := WatchTrees(eng, roots, false, nil)
	b.Cleanup(func() { w.Close() })
	s, err := New(Config{Engine: eng, Roots: roots, Token: testToken, Hosts: []string{testHost}, Watch: w})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s", w.State())
	// A vault as a viewer meets it: files written more than the racy
	// granule ago (a file stamped within it is read again on every
	// request, by the engine's page cache as by the viewer's catalog).
	time.Sleep(2*time.Second + 100*time.Millisecond) // racyGranule, and the page cache's
	return s, slugs[len(slugs)/2]
}

// benchView measures warm requests of one view: the first request (which
// fills what a long-lived viewer keeps between requests) is made and
// logged before the loop.
func benchView(b *testing.B, s *Server, target string) {
	b.Helper()
	b.ReportAllocs()
	get := func() {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.Host = testHost
		r.AddCookie(&http.Cookie{Name: s.cookie, Value: testToken})
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: status %d", target, w.Code)
		}
	}
	start := time.Now()
	get()
	b.Logf("%s: first request %v", target, time.Since(start))
	for b.Loop() {
		get()
	}
}

func BenchmarkViews10k(b *testing.B) {
	s, slug := benchServer(b, vaultgen.Default, 3)
	for _, v := range []struct{ name, target string }{
		{"overview", "/"},
		{"pages", "/pages"},
		{"pages-filtered", "/pages?status=deprecated"},
		{"page", pageHref(slug)},
		{"daily", "/daily"},
		{"memories", "/memories"},
		{"search", "/search?q=" + url.QueryEscape("token refresh")},
		{"graph-neighbourhood", "/graph?depth=2&focus=" + url.QueryEscape("page:"+slug)},
		{"graph-all", "/graph"}, // capped at maxGraphNodes
	} {
		b.Run(v.name, func(b *testing.B) { benchView(b, s, v.target) })
	}
	// The same views where change notification proves nothing (a file
	// system without events, Windows, an overflow being recovered from):
	// every request revalidates, as before issue 19.
	cfg := s.cfg
	cfg.Watch = nil
	plain, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("overview-revalidate", func(b *testing.B) { benchView(b, plain, "/") })
	b.Run("pages-revalidate", func(b *testing.B) { benchView(b, plain, "/pages") })
	// The yardstick of a revalidation: a bare stat pass of the page
	// files (list the directory, one lstat per page), what a view of a
	// vault that may have changed cannot do without.
	b.Run("stat-pass", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			names, err := s.cfg.Engine.BrowsePageNames()
			if err != nil {
				b.Fatal(err)
			}
			d, err := fsx.OpenDir(s.cfg.Engine.WS.Pages)
			if err != nil {
				b.Fatal(err)
			}
			for _, n := range names {
				if _, err := d.Stamp(n); err != nil {
					b.Fatal(err)
				}
			}
			d.Close()
		}
	})
	// Ranked search (find.MemIndex): the first query builds the in-memory
	// index (logged once); then warm queries.
	cfg = s.cfg
	cfg.Search = NewRankedSearch(cfg.Engine, cfg.Roots, false)
	rs, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("search-ranked", func(b *testing.B) {
		start := time.Now()
		if _, err := cfg.Search.Search(context.Background(), SearchQuery{Text: "token refresh", Limit: searchLimit}); err != nil {
			b.Fatal(err)
		}
		b.Logf("first query, which builds the in-memory index: %v", time.Since(start))
		benchView(b, rs, "/search?q="+url.QueryEscape("token refresh"))
	})
}

// BenchmarkGraph2000: the whole graph of a 2,000-page vault, every node
// drawn.
func BenchmarkGraph2000(b *testing.B) {
	spec := vaultgen.Default
	spec.Pages, spec.DailyLogs = 2000, 10
	s, _ := benchServer(b, spec, 2)
	benchView(b, s, "/graph")
}
