// Command vaultgen writes a large synthetic EchoesVault vault, for measuring
// git-echoes (and other engines) on identical input:
//
//	go run ./cmd/vaultgen -dir /tmp/big -pages 10000
//	go run ./cmd/vaultgen -dir /tmp/m -merge-lines 20000   (three versions to merge)
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-echoes/git-echoes/internal/vaultgen"
)

func main() {
	spec := vaultgen.Default
	dir := flag.String("dir", "", "workspace directory to fill (created if missing)")
	flag.IntVar(&spec.Pages, "pages", spec.Pages, "number of knowledge pages")
	flag.IntVar(&spec.PageBytes, "page-bytes", spec.PageBytes, "approximate bytes per page")
	flag.IntVar(&spec.DailyLogs, "daily", spec.DailyLogs, "number of daily entries")
	flag.IntVar(&spec.ExtraFiles, "extra-files", 0, "files outside the vault (to build a large repository)")
	memories := flag.Int("memories", 0, "ECC memories to write into <dir>/.ecc/memory (project and team scopes)")
	mergeLines := flag.Int("merge-lines", 0, "instead of a vault, write base.md, ours.md and theirs.md of this many lines of repetitive Markdown (merge-driver input)")
	seed := flag.Uint64("seed", 1, "seed of -merge-lines")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "vaultgen: -dir is required")
		os.Exit(2)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "vaultgen:", err)
		os.Exit(1)
	}
	if *mergeLines > 0 {
		base, ours, theirs := vaultgen.MergeVersions(*seed, *mergeLines)
		for name, text := range map[string][]byte{"base.md": base, "ours.md": ours, "theirs.md": theirs} {
			if err := os.WriteFile(filepath.Join(*dir, name), text, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "vaultgen:", err)
				os.Exit(1)
			}
		}
		return
	}
	if err := vaultgen.Write(*dir, spec); err != nil {
		fmt.Fprintln(os.Stderr, "vaultgen:", err)
		os.Exit(1)
	}
	if *memories > 0 {
		if err := vaultgen.WriteMemories(filepath.Join(*dir, ".ecc", "memory"), *memories, spec.Seed); err != nil {
			fmt.Fprintln(os.Stderr, "vaultgen:", err)
			os.Exit(1)
		}
	}
}
