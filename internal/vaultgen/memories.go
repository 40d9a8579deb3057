package vaultgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-echoes/git-echoes/gitvault/memory"
)

// WriteMemories writes n valid ecc.memory.v1 documents into the project and
// team scopes of the project memory vault root (<project>/.ecc/memory),
// spread over the kinds, with titles, tags and bodies from the page
// vocabulary: the memory half of the ranked-search benchmark (issue 12).
func WriteMemories(root string, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x51ed2701))
	pick := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	for i := 0; i < n; i++ {
		scope := "project"
		if i%3 == 2 {
			scope = "team"
		}
		kind := memory.Kinds[i%len(memory.Kinds)]
		m := &memory.Memory{Schema: "ecc.memory.v1", ID: fmt.Sprintf("mem_bench_%06d", i), Title: pick(5), Kind: kind, Scope: scope,
			Trust: "unreviewed", Status: "active", SourceHarness: "bench", TargetHarnesses: []string{"all"},
			Tags: []string{words[i%len(words)]}, Links: []string{}, CreatedAt: "2026-07-01T10:00:00.000Z",
			UpdatedAt: "2026-07-01T10:00:00.000Z", Body: pick(30) + ".\n" + pick(20) + "."}
		dir := filepath.Join(root, scope, kind+"s")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create memory directory: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, m.ID+".md"), m.Serialize(), 0o644); err != nil {
			return fmt.Errorf("write memory: %w", err)
		}
	}
	return nil
}
