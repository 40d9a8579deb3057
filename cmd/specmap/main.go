// Command specmap regenerates docs/spec-map.md, the index from every
// section of the specifications to the lines that cite it (see package
// internal/specmap for the citation grammar):
//
//	go run ./cmd/specmap
//
// It finds the module root from the current directory upward. It writes
// nothing, lists the offending lines and exits 1 when a citation does not
// name its document or names a section that does not exist.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-echoes/git-echoes/internal/specmap"
)

func main() {
	root := flag.String("root", "", "module root (default: the nearest directory with a go.mod, upward from the current one)")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "specmap:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	if root == "" {
		var err error
		if root, err = moduleRoot(); err != nil {
			return err
		}
	}
	text, probs, err := specmap.Generate(root)
	if err != nil {
		return err
	}
	if len(probs) > 0 {
		for _, p := range probs {
			fmt.Fprintln(os.Stderr, p)
		}
		return fmt.Errorf("%d invalid citations; %s not written", len(probs), specmap.MapPath)
	}
	return os.WriteFile(filepath.Join(root, filepath.FromSlash(specmap.MapPath)), text, 0o644)
}

// moduleRoot is the nearest directory holding a go.mod, from the current
// directory upward.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod in the current directory or above it")
		}
		dir = parent
	}
}
