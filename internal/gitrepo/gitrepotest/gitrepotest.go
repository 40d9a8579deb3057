// Package gitrepotest holds test helpers shared by packages whose tests run
// the real git binary as a referee: git run in the isolated environment of
// internal/testenv, and a deterministic generator of large repositories for
// benchmarks.
package gitrepotest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// Sandbox runs git in an isolated environment (internal/testenv) that is
// also set in the process for in-process code reading git configuration.
type Sandbox struct {
	Home         string // temporary $HOME
	GlobalConfig string // $GIT_CONFIG_GLOBAL (created empty)
	git          *testenv.Git
	tb           testing.TB
}

// New creates a sandbox and sets the process environment for the rest of
// the test with testenv's Setenv (so tests using it cannot be parallel);
// git subprocesses started with Git get an environment without any
// inherited GIT_* variable.
func New(tb testing.TB) *Sandbox {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Fatalf("the git binary is required: %v", err)
	}
	g := testenv.TempGit(tb)
	g.Setenv(tb)
	return &Sandbox{Home: g.Home, GlobalConfig: g.GlobalConfig, git: g, tb: tb}
}

// env returns the environment for a git subprocess: the isolated
// environment inheriting the rest of the process's, plus fixed identities
// and dates (so commits are reproducible) and extra.
func (s *Sandbox) env(extra []string) []string {
	env := append(s.git.Inherit(),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z",
	)
	return append(env, extra...)
}

// Run runs git in dir with extra environment entries and stdin, returning
// stdout and the error (with stderr) without failing the test, for commands
// whose failure is part of the scenario (a conflicting merge).
func (s *Sandbox) Run(dir string, extraEnv []string, stdin []byte, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	var err error
	for attempt := 0; ; attempt++ {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = s.env(extraEnv)
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		stdout.Reset()
		stderr.Reset()
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err = cmd.Start(); err != nil {
			// Under wine a process start fails now and then with "Internal
			// error." when the machine is loaded. A process that never
			// started did nothing, so starting it again is safe; a git that
			// ran and failed is never retried.
			if runtime.GOOS == "windows" && attempt < 4 {
				time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
				continue
			}
			break
		}
		err = cmd.Wait()
		break
	}
	if err != nil {
		return stdout.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// Git runs git in dir and returns stdout, failing the test on error.
func (s *Sandbox) Git(dir string, args ...string) string {
	s.tb.Helper()
	out, err := s.Run(dir, nil, nil, args...)
	if err != nil {
		s.tb.Fatal(err)
	}
	return out
}

// Init creates a repository at dir (default branch "main") and returns dir.
func (s *Sandbox) Init(dir string, args ...string) string {
	s.tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		s.tb.Fatal(err)
	}
	s.Git(dir, append([]string{"init", "-q", "-b", "main"}, args...)...)
	return dir
}

// Rand is a small deterministic generator (splitmix64) so that generated
// repositories are identical from run to run and across packages.
type Rand struct{ state uint64 }

// NewRand returns a generator seeded with seed.
func NewRand(seed uint64) *Rand { return &Rand{state: seed} }

// Uint64 returns the next value.
func (r *Rand) Uint64() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Intn returns a value in [0, n).
func (r *Rand) Intn(n int) int { return int(r.Uint64() % uint64(n)) }

// Pick returns a random element of xs.
func Pick[T any](r *Rand, xs []T) T { return xs[r.Intn(len(xs))] }

// LargeRepo describes a generated repository.
type LargeRepo struct {
	Top   string   // work tree top level (a git repository, nothing staged)
	Files []string // every generated file, slash-separated, sorted by creation
}

// GenerateLarge creates under dir a git repository holding n small files
// spread over a directory tree (fan-out 10, so depth grows with n), with a
// .gitignore at the top and in about one directory in seven, and
// .git/info/exclude. The layout depends only on n and seed.
func GenerateLarge(tb testing.TB, s *Sandbox, dir string, n int, seed uint64) LargeRepo {
	tb.Helper()
	top := s.Init(dir)
	r := NewRand(seed)
	exts := []string{".md", ".txt", ".log", ".bin", ".tmp", ".json"}
	ignores := []string{"*.log", "build/", "!keep.log", "/d3/", "tmp*", "**/cache/**", "*.tmp", "!important.tmp", "d1/d2/", "[0-4]*.bin"}
	files := make([]string, 0, n)
	dirsWithIgnore := map[string]bool{}
	testenv.WriteFile(tb, filepath.Join(top, ".gitignore"), "*.log\n!keep.log\nbuild/\n")
	testenv.WriteFile(tb, filepath.Join(top, ".git/info/exclude"), "*.bin\n!f1*.bin\n")
	for i := 0; i < n; i++ {
		// Directory path from the base-10 digits of i/10: a balanced tree.
		var parts []string
		for q := i / 10; q > 0; q /= 10 {
			parts = append(parts, fmt.Sprintf("d%d", q%10))
		}
		d := strings.Join(parts, "/")
		name := fmt.Sprintf("f%d%s", i, Pick(r, exts))
		rel := name
		if d != "" {
			rel = d + "/" + name
		}
		if d != "" && !dirsWithIgnore[d] {
			dirsWithIgnore[d] = true
			if r.Intn(7) == 0 {
				testenv.WriteFile(tb, filepath.Join(top, d+"/.gitignore"), Pick(r, ignores)+"\n"+Pick(r, ignores)+"\n")
			}
		}
		testenv.WriteFile(tb, filepath.Join(top, rel), name+"\n")
		files = append(files, rel)
	}
	return LargeRepo{Top: top, Files: files}
}

// Open creates a sandbox and a repository in a new temporary directory and
// opens it with open (gitrepo.Open: passed in, because gitrepo's own tests
// use this package and it cannot import gitrepo).
func Open[R any](tb testing.TB, open func(dir string) (R, error)) (*Sandbox, R) {
	tb.Helper()
	sb := New(tb)
	repo, err := open(sb.Init(filepath.Join(tb.TempDir(), "repo")))
	if err != nil {
		tb.Fatal(err)
	}
	return sb, repo
}
