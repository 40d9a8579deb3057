// Package vaultgen writes large synthetic EchoesVault vaults for benchmarks
// and for measuring git-echoes against other engines on identical input.
// The output is deterministic for a given Spec.
package vaultgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Spec describes a synthetic vault.
type Spec struct {
	Pages      int // number of knowledge pages
	PageBytes  int // approximate size of each page body
	DailyLogs  int // number of daily entries
	Deprecated int // every Deprecated-th page is deprecated (0: none)
	ExtraFiles int // files outside the vault, in a balanced tree under src/ (a large repository)
	Seed       uint64
}

// Default is the 10,000-page (about 40 MB) vault the issues measure.
var Default = Spec{Pages: 10000, PageBytes: 4000, DailyLogs: 200, Deprecated: 25, Seed: 1}

const marker = `{
  "schemaVersion": 3,
  "protocolVersion": "1.0.0",
  "generatedIndex": true,
  "dailyLayout": "unique-files-v1",
  "runtime": ".echoes-vault/echoes_vault.py",
  "requiredFrontmatter": [
    "type",
    "stack",
    "status",
    "summary"
  ]
}
`

var words = strings.Fields(`authentication service boundary token refresh database schema migration
deployment cluster cache latency queue worker retry backoff contract endpoint payload validation
storage bucket replica index shard partition consumer producer metrics tracing logging alert budget
release rollout feature flag configuration secret rotation certificate network gateway proxy`)

// Write creates the vault files of spec under workspace (which must exist):
// the marker, ignore files, pages and daily entries. It does not write
// index.md or state: the engine under test generates those.
func Write(workspace string, spec Spec) error {
	rng := rand.New(rand.NewPCG(spec.Seed, spec.Seed^0x9e3779b97f4a7c15))
	vault := filepath.Join(workspace, "EchoesVault")
	for _, d := range []string{"pages", "daily", "assets", "raw"} {
		if err := os.MkdirAll(filepath.Join(vault, d), 0o755); err != nil {
			return fmt.Errorf("create vault directory: %w", err)
		}
	}
	files := map[string]string{
		filepath.Join(vault, ".echoes-vault.json"):                   marker,
		filepath.Join(vault, ".gitignore"):                           "# Generated locally by EchoesVault\n/index.md\n",
		filepath.Join(workspace, ".echoes-vault", ".gitignore"):      "# EchoesVault runtime files\n/state.json\n/lock\n",
		filepath.Join(workspace, ".echoes-vault", "echoes_vault.py"): "ENGINE_VERSION = \"1.1.1\"\nPROTOCOL_VERSION = \"1.0.0\"\n",
	}
	for path, text := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("create directory: %w", err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	var body strings.Builder
	for i := 0; i < spec.Pages; i++ {
		status := "active"
		if spec.Deprecated > 0 && i%spec.Deprecated == 0 {
			status = "deprecated"
		}
		body.Reset()
		fmt.Fprintf(&body, "---\ntype: architecture\nstack: [go, postgresql]\nstatus: %s\nsummary: Page %d about %s and %s.\n---\n\n# Page %d\n\n",
			status, i, words[rng.IntN(len(words))], words[rng.IntN(len(words))], i)
		for body.Len() < spec.PageBytes {
			n := 8 + rng.IntN(10)
			for j := 0; j < n; j++ {
				if j > 0 {
					body.WriteByte(' ')
				}
				body.WriteString(words[rng.IntN(len(words))])
			}
			body.WriteString(".\n")
		}
		name := fmt.Sprintf("page-%05d.md", i)
		if err := os.WriteFile(filepath.Join(vault, "pages", name), []byte(body.String()), 0o644); err != nil {
			return fmt.Errorf("write page: %w", err)
		}
	}
	for i := 0; i < spec.DailyLogs; i++ {
		day := fmt.Sprintf("2026-%02d-%02d", 1+i%12, 1+i%28)
		dir := filepath.Join(vault, "daily", day)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create daily directory: %w", err)
		}
		name := fmt.Sprintf("%sT120000%06dZ-scratchpad-bench-%08x.md", strings.ReplaceAll(day, "-", ""), i, rng.Uint32())
		text := fmt.Sprintf("### Scratchpad — %sT12:00:00+00:00\n\nAgent: `bench`\n\n- entry %d\n", day, i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return fmt.Errorf("write daily entry: %w", err)
		}
	}
	for i := 0; i < spec.ExtraFiles; i++ {
		// The decimal digits of i/100 name the directories: a balanced tree
		// with at most 100 files per directory.
		dir := filepath.Join(workspace, "src")
		for q := i / 100; q > 0; q /= 10 {
			dir = filepath.Join(dir, fmt.Sprintf("d%d", q%10))
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create source directory: %w", err)
		}
		name := filepath.Join(dir, fmt.Sprintf("file%06d.go", i))
		if err := os.WriteFile(name, []byte(fmt.Sprintf("package d\n\n// File %d.\n", i)), 0o644); err != nil {
			return fmt.Errorf("write source file: %w", err)
		}
	}
	return nil
}
