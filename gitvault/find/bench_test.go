package find

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/testenv"
	"github.com/git-echoes/git-echoes/internal/vaultgen"
)

// The issue-12 benchmarks: 10,000 pages (vaultgen.Default, about 40 MB)
// and 5,000 memories. The vault's 40-word vocabulary makes every query
// match most documents: the ranking's worst case. scripts/bench.sh runs
// the same corpus and queries through Python's sqlite3 FTS5 as the
// yardstick.

// BenchQueries are the queries of the benchmarks (and of
// scripts/bench-fts5.py).
var BenchQueries = []string{"token refresh", "database migration", "retry backoff", "cache latency", "feature flag rollout",
	"certificate rotation", "queue worker", "shard partition", "gateway proxy", "tracing"}

var (
	benchOnce sync.Once
	benchEng  *gitvault.Engine
	benchErr  error
)

func benchVault(b *testing.B) *gitvault.Engine {
	b.Helper()
	benchOnce.Do(func() {
		dir, err := testenv.SharedTempDir("find-bench-")
		if err != nil {
			benchErr = err
			return
		}
		if err = vaultgen.Write(dir, vaultgen.Default); err == nil {
			err = vaultgen.WriteMemories(filepath.Join(dir, ".ecc", "memory"), 5000, 1)
		}
		if err != nil {
			benchErr = err
			return
		}
		// Identities older than the racy window, as in a vault at rest.
		ts := time.Now().Add(-time.Hour)
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				os.Chtimes(p, ts, ts)
			}
			return nil
		})
		benchEng, benchErr = gitvault.Open(gitvault.Options{Workspace: dir})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	b.Setenv("HOME", filepath.Join(benchEng.WS.Root, "home"))
	b.Setenv("ECC_MEMORY_PROJECT_ROOT", "")
	b.Setenv("ECC_MEMORY_USER_ROOT", "")
	return benchEng
}

func indexBytes(b *testing.B, eng *gitvault.Engine) float64 {
	cache, _ := eng.WS.LocalCacheDir("find")
	var n int64
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return float64(n)
}

// BenchmarkFindFirstBuild: no index; one query builds it.
func BenchmarkFindFirstBuild(b *testing.B) {
	eng := benchVault(b)
	cache, _ := eng.WS.LocalCacheDir("find")
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.RemoveAll(cache)
		b.StartTimer()
		if _, err := Find(eng.WS, Options{Query: "token refresh"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(indexBytes(b, eng)/1e6, "index-MB")
}

// BenchmarkFindWarmQuery: an up-to-date index; each query still
// revalidates every page and memory by identity. p50 and p99 over the
// queries.
func BenchmarkFindWarmQuery(b *testing.B) {
	eng := benchVault(b)
	if _, err := Find(eng.WS, Options{Query: "warm"}); err != nil {
		b.Fatal(err)
	}
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := Find(eng.WS, Options{Query: BenchQueries[i%len(BenchQueries)]})
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
		if res.Index.Updated != 0 || res.Index.Rebuilt {
			b.Fatalf("warm query re-indexed: %+v", res.Index)
		}
	}
	reportPercentiles(b, ds)
}

// BenchmarkFindUpdateOnePage: one page changed since the last query.
func BenchmarkFindUpdateOnePage(b *testing.B) {
	eng := benchVault(b)
	if _, err := Find(eng.WS, Options{Query: "warm"}); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(eng.WS.Pages, "page-05000.md")
	orig, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	defer os.WriteFile(p, orig, 0o644)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.WriteFile(p, append(append([]byte{}, orig...), fmt.Sprintf("edit %d\n", i)...), 0o644)
		ts := time.Now().Add(-time.Hour)
		os.Chtimes(p, ts, ts)
		b.StartTimer()
		res, err := Find(eng.WS, Options{Query: "token refresh"})
		if err != nil {
			b.Fatal(err)
		}
		if res.Index.Updated != 1 {
			b.Fatalf("updated %+v", res.Index)
		}
	}
}

func reportPercentiles(b *testing.B, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	if len(ds) == 0 {
		return
	}
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[min(len(ds)-1, len(ds)*99/100)].Microseconds())/1000, "p99-ms")
}

// BenchmarkBestLines: the best lines of one hit of about 12 kB (the
// longest page of the prose corpus, scripts/prose-corpus.py), a query of
// two words, one of them on a few of its lines.
func BenchmarkBestLines(b *testing.B) {
	q, err := ParseQuery("context cancellation")
	if err != nil {
		b.Fatal(err)
	}
	var body []byte
	for i := 0; len(body) < 12000; i++ {
		line := fmt.Sprintf("The retryPolicy retries failed webhook deliveries with exponential back-off; max_retries is %d.\n", i)
		if i%25 == 0 {
			line = "A request's context is cancelled: return the last response and stop the cancellation timer.\n"
		}
		body = append(body, line...)
	}
	text := string(body)
	lm := q.lineMatcher()
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		if len(bestLines(lm, text, 1, false)) == 0 {
			b.Fatal("no best lines")
		}
	}
}
