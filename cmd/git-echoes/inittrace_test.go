package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// initHeavyBytes is what counts as non-trivial package init: bytes allocated
// by the package's init, which, unlike its clock time, is the same on every
// machine for a given build.
const initHeavyBytes = 4096

// TestInitAllowlist guards issue 19 part 0: the built binary, run as
// `git echoes check --staged` (the pre-commit hook), runs no non-trivial
// package init outside testdata/init-allow.txt. The standard library is
// ignored (its init is unavoidable); our packages and every dependency count.
func TestInitAllowlist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := buildEchoes(t, dir)
	work := filepath.Join(dir, "repo")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "check", "--staged")
	cmd.Dir = work
	cmd.Env = append(testenv.TempGit(t).Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run() // the verdict does not matter: init runs before main

	allowed := map[string]bool{}
	data, err := os.ReadFile(filepath.Join("testdata", "init-allow.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			allowed[l] = true
		}
	}

	seen := 0
	var bad []string
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		seen++
		pkg := f[1]
		if first, _, _ := strings.Cut(pkg, "/"); !strings.Contains(first, ".") {
			continue // standard library (and its vendor/ copies)
		}
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		if b >= initHeavyBytes && !allowed[pkg] {
			bad = append(bad, pkg+" ("+f[7]+" bytes)")
		}
	}
	if seen < 10 {
		t.Fatalf("GODEBUG=inittrace=1 printed %d init lines; stderr:\n%s", seen, stderr.String())
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("package init allocates ≥ %d bytes in every process (build it on first use, sync.OnceValue, or add it to testdata/init-allow.txt with a reason):\n%s",
			initHeavyBytes, strings.Join(bad, "\n"))
	}
}
