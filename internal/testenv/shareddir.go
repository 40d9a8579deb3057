package testenv

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// Directories that outlive one test but not the test binary: a git-echoes
// built once for every test of a package, a benchmark's generated history.
// t.TempDir cannot hold them (it goes with its test), so they are made
// here and removed by Run when the tests end.
var shared struct {
	mu   sync.Mutex
	dirs []string
}

// SharedTempDir makes a temporary directory (os.MkdirTemp with prefix) that
// Run removes after the last test. A package that calls it runs its tests
// through Run (its TestMain).
func SharedTempDir(prefix string) (string, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	shared.mu.Lock()
	shared.dirs = append(shared.dirs, dir)
	shared.mu.Unlock()
	return dir, nil
}

// Run runs the tests and removes every SharedTempDir; it returns m.Run's
// exit code, for os.Exit.
func Run(m *testing.M) int {
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	for _, dir := range shared.dirs {
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintln(os.Stderr, "testenv: removing a shared temporary directory:", err)
			if code == 0 {
				code = 1
			}
		}
	}
	shared.dirs = nil
	return code
}
