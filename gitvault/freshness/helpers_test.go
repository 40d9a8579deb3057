package freshness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

// repoT is a repository under test: real git makes the history, each
// commit one second after the previous.
type repoT struct {
	t   *testing.T
	s   *gitrepotest.Sandbox
	dir string
	n   int
}

func newRepo(t *testing.T) *repoT {
	t.Helper()
	s := gitrepotest.New(t)
	dir := s.Init(filepath.Join(t.TempDir(), "r"))
	return &repoT{t: t, s: s, dir: dir}
}

func (r *repoT) date() string { return fmt.Sprintf("2026-01-01T00:%02d:%02dZ", r.n/60, r.n%60) }

func (r *repoT) env() []string {
	d := r.date()
	return []string{"GIT_AUTHOR_DATE=" + d, "GIT_COMMITTER_DATE=" + d}
}

func (r *repoT) git(args ...string) string {
	r.t.Helper()
	out, err := r.s.Run(r.dir, r.env(), nil, args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

func (r *repoT) write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repoT) read(path string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(path)))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// commit stages everything and commits; it returns the commit id.
func (r *repoT) commit(msg string) string {
	r.t.Helper()
	r.n++
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func (r *repoT) open() *gitrepo.Repo {
	r.t.Helper()
	repo, err := gitrepo.Open(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	return repo
}

// check runs Check on the committed pages at HEAD.
func (r *repoT) check(paths ...string) []Report {
	r.t.Helper()
	return r.checkAt("HEAD", paths...)
}

func (r *repoT) checkAt(rev string, paths ...string) []Report {
	r.t.Helper()
	head := r.git("rev-parse", rev)
	var docs []Doc
	for _, p := range paths {
		docs = append(docs, Doc{Path: p, Text: r.git("show", head+":"+p)})
	}
	reps, err := Check(r.open(), head, docs)
	if err != nil {
		r.t.Fatal(err)
	}
	return reps
}

func lines(n int, tag string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", tag, i)
	}
	return b.String()
}

func page(sources []string, body string) string {
	var b strings.Builder
	b.WriteString("---\ntype: note\nstatus: active\nsummary: \"a page\"\n")
	if sources != nil {
		b.WriteString("sources:\n")
		for _, s := range sources {
			b.WriteString("  - " + s + "\n")
		}
	}
	b.WriteString("---\n\n" + body + "\n")
	return b.String()
}

type gitrepoCommit = gitrepo.Commit

func (r *repoT) readAbs(p string) string {
	r.t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// openAt opens the repository at dir (a clone of r's).
func (r *repoT) openAt(dir string) *gitrepo.Repo {
	r.t.Helper()
	repo, err := gitrepo.Open(dir)
	if err != nil {
		r.t.Fatal(err)
	}
	return repo
}

// forSeeds runs fn as a subtest for seeds 1 to 6 (2 with -short): the
// random-history tests' loop.
func forSeeds(t *testing.T, fn func(t *testing.T, seed uint64)) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { fn(t, uint64(seed)) })
	}
}
