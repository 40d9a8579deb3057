// Command vaultgen writes a large synthetic EchoesVault vault, for measuring
// git-echoes (and other engines) on identical input:
//
//	go run ./cmd/vaultgen -dir /tmp/big -pages 10000
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/git-echoes/git-echoes/internal/vaultgen"
)

func main() {
	spec := vaultgen.Default
	dir := flag.String("dir", "", "workspace directory to fill (created if missing)")
	flag.IntVar(&spec.Pages, "pages", spec.Pages, "number of knowledge pages")
	flag.IntVar(&spec.PageBytes, "page-bytes", spec.PageBytes, "approximate bytes per page")
	flag.IntVar(&spec.DailyLogs, "daily", spec.DailyLogs, "number of daily entries")
	flag.IntVar(&spec.ExtraFiles, "extra-files", 0, "files outside the vault (to build a large repository)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "vaultgen: -dir is required")
		os.Exit(2)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "vaultgen:", err)
		os.Exit(1)
	}
	if err := vaultgen.Write(*dir, spec); err != nil {
		fmt.Fprintln(os.Stderr, "vaultgen:", err)
		os.Exit(1)
	}
}
