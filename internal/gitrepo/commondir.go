package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CommonDirAt returns the common Git directory of the work tree whose top
// level is top: what Open(top).CommonDir() returns, found the cheap way
// (the .git entry and the commondir file only), for callers that only
// need to know where the repository keeps its files (`git echoes find`
// locates its index there on every query, issue 19) and would otherwise
// pay for the configuration with its includes, the index and the exclude
// files. It checks nothing else Open checks (the repository format).
func CommonDirAt(top string) (string, error) {
	real, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", fmt.Errorf("locate repository: %w", err)
	}
	gitDir, found, err := gitDirAt(real)
	if err != nil {
		return "", fmt.Errorf("locate repository: %w", err)
	}
	if !found {
		return "", fmt.Errorf("locate repository: %s is not the top of a git work tree", real)
	}
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if errors.Is(err, os.ErrNotExist) {
		return gitDir, nil
	}
	if err != nil {
		return "", fmt.Errorf("locate repository: read commondir: %w", err)
	}
	c := strings.TrimRight(string(data), "\r\n")
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c), nil
}
