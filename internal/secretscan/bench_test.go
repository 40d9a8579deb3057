package secretscan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault/memory"
)

// benchPages are 1,000 pages of prose with the words the generic rule's
// keywords hit (key, token, secret, password) and no credential.
func benchPages() []string {
	out := make([]string, 1000)
	for i := range out {
		out[i] = fmt.Sprintf("---\ntype: note\nstack: go\nstatus: active\nsummary: Page %d.\n---\n# Page %d\n\n%s", i, i,
			strings.Repeat("The deploy key rotates with the API token; the secret store holds the password. See [[other]].\n", 20))
	}
	return out
}

// BenchmarkScan1kPages/gitleaks is this scanner on 1,000 pages;
// /reference-families is today's gate scan (the memory vault's ten
// families, memory.SecretLines) on the same pages: the yardstick.
func BenchmarkScan1kPages(b *testing.B) {
	pages := benchPages()
	s := mustDefault(b)
	b.Run("gitleaks", func(b *testing.B) {
		for b.Loop() {
			for _, p := range pages {
				if _, err := s.Scan("EchoesVault/pages/p.md", "", p); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("reference-families", func(b *testing.B) {
		for b.Loop() {
			for _, p := range pages {
				memory.SecretLines(p)
			}
		}
	})
}

// BenchmarkColdScanner is what every check --staged process pays for its
// secret rule: the compiled-in configuration built, the memory vault's
// families added, and one short page scanned (its words hit the generic
// rule's keywords, so that rule's regex and window plan are built too).
func BenchmarkColdScanner(b *testing.B) {
	page := benchPages()[0]
	var extra []ExtraRule
	for i, p := range memory.SecretPatterns() {
		extra = append(extra, ExtraRule{ID: fmt.Sprintf("ecc-%d", i), Regex: p.Regex, Fallback: true})
	}
	for b.Loop() {
		p, err := buildConfig(defaultTables, "default", false)
		if err != nil {
			b.Fatal(err)
		}
		s, err := newScanner(p.rules, p.global).WithRules(extra)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Scan("EchoesVault/pages/p.md", "", page); err != nil {
			b.Fatal(err)
		}
	}
}
