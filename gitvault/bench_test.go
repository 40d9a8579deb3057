package gitvault

import (
	"strings"
	"sync"
	"testing"

	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
	"github.com/git-echoes/git-echoes/internal/vaultgen"
)

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

// benchVault returns a workspace holding the 10,000-page (~40 MB) synthetic
// vault, generated once per test process.
func benchVault(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		benchDir, benchErr = testenv.SharedTempDir("echoes-bench-")
		if benchErr == nil {
			benchErr = vaultgen.Write(benchDir, vaultgen.Default)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

func benchEngine(b *testing.B) *Engine {
	b.Helper()
	e, err := Open(Options{Workspace: benchVault(b)})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func BenchmarkRebuildIndex10k(b *testing.B) {
	e := benchEngine(b)
	for b.Loop() {
		if _, err := e.RebuildIndex(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearch10k(b *testing.B) {
	e := benchEngine(b)
	for b.Loop() {
		// A query that matches nothing forces the full scan.
		if _, err := e.Search("no-such-phrase-anywhere", 100); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchCommonWord10k(b *testing.B) {
	e := benchEngine(b)
	for b.Loop() {
		if _, err := e.Search("Token", 500); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppend10k(b *testing.B) {
	e := benchEngine(b)
	payload := func() ([]byte, error) { return []byte(`{"entry": "- benchmark entry", "agent": "bench"}`), nil }
	if _, err := e.RebuildIndex(); err != nil { // writes a state with counts
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := e.Append(payload); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHash10k(b *testing.B) {
	e := benchEngine(b)
	for b.Loop() {
		if _, err := e.Hash("page-05000.md"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParsePage(b *testing.B) {
	page := "---\ntype: architecture\nstack: [go]\nstatus: active\nsummary: A page.\n---\n\n" + strings.Repeat("Some body text about tokens.\n", 150)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := validatePage(page, true); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNormalizePageName(b *testing.B) {
	for b.Loop() {
		if _, err := normalizePageName(pyjson.Str("  Straße Notes.md ")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchKeptTexts10k is the MCP server's warm echoes_search
// (issue 10): page texts kept in memory, every page revalidated by stamp.
func BenchmarkSearchKeptTexts10k(b *testing.B) {
	e := benchEngine(b)
	e.KeepPageTexts(0)
	old := cacheGranule
	cacheGranule = 0
	b.Cleanup(func() { cacheGranule = old })
	if _, err := e.Search("no-such-phrase-anywhere", 100); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := e.Search("no-such-phrase-anywhere", 100); err != nil {
			b.Fatal(err)
		}
	}
}
