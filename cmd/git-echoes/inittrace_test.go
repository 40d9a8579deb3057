package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// initHeavyBytes is what counts as non-trivial package init: bytes allocated
// by the package's init, which, unlike its clock time, is the same on every
// run of a given build.
const initHeavyBytes = 4096

// TestInitHeavyList guards issue 19 part 0. Package init runs before main,
// so every command pays the init of every package linked into the binary.
// The test runs the built binary as `git echoes --version`, `git echoes
// check --staged` (the pre-commit hook) and `git echoes append` (an agent's
// most frequent write) under GODEBUG=inittrace=1 and asserts, for each,
// that the packages whose init allocates at least initHeavyBytes are
// exactly those of testdata/init-heavy.txt: a package new to the list fails
// (build it on first use, sync.OnceValue), and so does one that left it
// (take its line out, so it cannot come back unseen). The standard library
// is left out (its init is the floor of any Go program); our packages, main
// included, and every dependency count.
//
// Linux only: the list is measured there, and other systems link other
// per-OS files of the same dependencies.
func TestInitHeavyList(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("testdata/init-heavy.txt is the Linux build's list")
	}
	want := readInitList(t)
	dir := t.TempDir()
	bin := buildEchoes(t, dir)
	g := testenv.TempGit(t)

	repo := filepath.Join(dir, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	gitInit := exec.Command("git", "init", "-q", repo)
	gitInit.Env = g.Environ()
	if out, err := gitInit.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := initCmd(bin, g.Environ(), ws, "", "init").CombinedOutput(); err != nil {
		t.Fatalf("git echoes init: %v\n%s", err, out)
	}

	for _, c := range []struct {
		name, dir, stdin string
		args             []string
	}{
		{"--version", dir, "", []string{"--version"}},
		{"check --staged", repo, "", []string{"check", "--staged"}},
		{"append", ws, `{"entry": "- init trace"}`, []string{"append"}},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			// TZ is pinned: BurntSushi/toml's init reads the local zone,
			// and what that allocates depends on the zone file.
			cmd := initCmd(bin, append(g.Environ(), "GODEBUG=inittrace=1", "TZ=UTC"), c.dir, c.stdin, c.args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("git echoes %s: %v\n%s", c.name, err, stderr.String())
			}
			got := heavyInits(t, stderr.Bytes())
			for _, p := range initsOf(stderr.Bytes(), keptOutStd) {
				t.Errorf("standard-library package %s is initialized in every process; %s", p, keptOutStd[p])
			}
			var extra, gone []string
			for p, b := range got {
				if !want[p] {
					extra = append(extra, p+" ("+strconv.Itoa(b)+" bytes)")
				}
			}
			for p := range want {
				if _, ok := got[p]; !ok {
					gone = append(gone, p)
				}
			}
			sort.Strings(extra)
			sort.Strings(gone)
			if len(extra) > 0 {
				t.Errorf("package init allocates >= %d bytes in every process, not in testdata/init-heavy.txt (build it on first use, or add it there with the reason):\n%s",
					initHeavyBytes, strings.Join(extra, "\n"))
			}
			if len(gone) > 0 {
				t.Errorf("in testdata/init-heavy.txt but no longer heavy at init: take these lines out:\n%s", strings.Join(gone, "\n"))
			}
		})
	}
}

// keptOutStd are standard-library packages, left out of the heavy list
// (their init is the floor of any Go program that links them), that
// git-echoes does not link, with why: each was measured in every
// process's start-up.
var keptOutStd = map[string]string{
	"runtime/metrics": "its init builds the table of every metric in every process (64 page faults of --version); internal/gctune reads the heap through runtime.ReadMemStats",
}

// initsOf returns the packages of set that GODEBUG=inittrace=1 shows
// initialized, sorted.
func initsOf(trace []byte, set map[string]string) []string {
	var out []string
	for _, l := range strings.Split(string(trace), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "init" {
			if _, ok := set[f[1]]; ok {
				out = append(out, f[1])
			}
		}
	}
	sort.Strings(out)
	return out
}

func initCmd(bin string, env []string, dir, stdin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	return cmd
}

// readInitList reads testdata/init-heavy.txt: one import path a line,
// # comments.
func readInitList(t *testing.T) map[string]bool {
	data, err := os.ReadFile(filepath.Join("testdata", "init-heavy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			if want[l] {
				t.Fatalf("init-heavy.txt lists %s twice", l)
			}
			want[l] = true
		}
	}
	return want
}

// heavyInits returns the packages outside the standard library (main
// included) whose init, as GODEBUG=inittrace=1 prints it, allocated at
// least initHeavyBytes, with the bytes.
func heavyInits(t *testing.T, trace []byte) map[string]int {
	got := map[string]int{}
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(trace))
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		seen++
		pkg := f[1]
		if first, _, _ := strings.Cut(pkg, "/"); pkg != "main" && !strings.Contains(first, ".") {
			continue // standard library (and its vendor/ copies)
		}
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		if b >= initHeavyBytes {
			got[pkg] = b
		}
	}
	if seen < 10 {
		t.Fatalf("GODEBUG=inittrace=1 printed %d init lines; stderr:\n%s", seen, trace)
	}
	return got
}
