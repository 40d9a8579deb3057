package memory

import (
	"fmt"
	"strings"
	"testing"
)

// benchVault writes n memories in the exact on-disk format, spread over
// kinds and both default scopes, with some links and tags for ranking.
func benchVault(b *testing.B, n int) *Roots {
	b.Helper()
	r := testRoots(b)
	words := []string{"token", "rotation", "database", "migration", "deploy", "cache", "auth", "review"}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("mem_20260726_bench%06d", i)
		writeMemory(b, r, mem(id, func(m *Memory) {
			m.Kind = Kinds[i%len(Kinds)]
			if i%3 == 0 {
				m.Scope = "team"
			}
			m.Title = fmt.Sprintf("%s %s note %d", words[i%8], words[(i/8)%8], i)
			m.Tags = []string{words[(i+3)%8]}
			if i > 0 {
				m.Links = []string{fmt.Sprintf("mem_20260726_bench%06d", i-1)}
			}
			m.Body = strings.Repeat(words[(i+5)%8]+" and "+words[(i+1)%8]+" details. ", 20)
		}))
	}
	return r
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := benchVault(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := Search(r, SearchOptions{Query: "token rotation", Limit: 20})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Results) == 0 {
					b.Fatal("no results")
				}
			}
		})
	}
}

func BenchmarkDoctor(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := benchVault(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d, err := Doctor(r, DoctorOptions{})
				if err != nil {
					b.Fatal(err)
				}
				// 5000 memories plus the kind directories exceed the 5000-entry
				// budget, so the large vault is (correctly) truncated.
				if d.MemoryCount == 0 {
					b.Fatal("no memories")
				}
			}
		})
	}
}

// BenchmarkCachedSearch and BenchmarkCachedRead are the MCP server's warm
// calls (issue 10): a Cache filled by a first scan, every call revalidating
// each file by its stamp. Read refuses a truncated scan, so its vault stays
// under the 5,000-entry budget.
func BenchmarkCachedSearch(b *testing.B) {
	benchGranule(b)
	r := withCache(benchVault(b, 4990), NewCache())
	if _, err := Search(r, SearchOptions{Query: "token rotation", Limit: 20}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Search(r, SearchOptions{Query: "token rotation", Limit: 20})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Results) == 0 {
			b.Fatal("no results")
		}
	}
}

func BenchmarkCachedRead(b *testing.B) {
	benchGranule(b)
	r := withCache(benchVault(b, 4000), NewCache())
	id := "mem_20260726_bench000042"
	if _, err := Read(r, id, ReadOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Read(r, id, ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchGranule lets a benchmark trust the files it has just written.
func benchGranule(b *testing.B) {
	old := cacheGranule
	cacheGranule = 0
	b.Cleanup(func() { cacheGranule = old })
}
