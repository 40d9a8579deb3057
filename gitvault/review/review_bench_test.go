package review

import (
	"bytes"
	"fmt"
	"github.com/git-echoes/git-echoes/gitvault"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

// fastImport builds a repository from a git fast-import stream written by
// gen (commits on refs/heads/main), which is much faster than committing
// through the work tree.
func fastImport(b *testing.B, gen func(w *bytes.Buffer)) (*gitrepotest.Sandbox, string) {
	b.Helper()
	sb := gitrepotest.New(b)
	dir := sb.Init(filepath.Join(b.TempDir(), "repo"))
	var stream bytes.Buffer
	gen(&stream)
	if _, err := sb.Run(dir, nil, stream.Bytes(), "fast-import", "--quiet"); err != nil {
		b.Fatal(err)
	}
	sb.Git(dir, "reset", "-q", "--hard", "main")
	return sb, dir
}

func inlineFile(w *bytes.Buffer, path, content string) {
	fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
}

func benchPage(i, version int) string {
	return fmt.Sprintf("---\ntype: note\nstack: [go]\nstatus: active\nsummary: Page %d version %d.\n---\n\n# Page %d\n\n"+
		"Some knowledge about component %d.\nMore lines of text %d.\nVersion %d.\n", i, version, i, i, i*7, version)
}

func commitHeader(w *bytes.Buffer, n int, msg string) {
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n", 1600000000+n, len(msg), msg)
}

// BenchmarkDiff100of10k: git echoes diff of two revisions that touch 100
// pages of a 10,000-page vault (issue 9 asks for a few tens of ms).
func BenchmarkDiff100of10k(b *testing.B) {
	_, dir := fastImport(b, func(w *bytes.Buffer) {
		commitHeader(w, 0, "base")
		for i := 0; i < 10000; i++ {
			inlineFile(w, fmt.Sprintf("EchoesVault/pages/page-%05d.md", i), benchPage(i, 0))
		}
		commitHeader(w, 1, "edit 100")
		for i := 0; i < 10000; i += 100 {
			inlineFile(w, fmt.Sprintf("EchoesVault/pages/page-%05d.md", i), benchPage(i, 1))
		}
	})
	e, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		b.Fatal(err)
	}
	rr := RevRange{A: "HEAD~1", B: "HEAD"}
	for b.Loop() {
		res, err := Diff(e, rr)
		if err != nil || len(res.Pages) != 100 {
			b.Fatalf("%v %v", err, res)
		}
	}
}

// logRepo is 1,000 commits over a 1,000-page vault, each editing one page
// and every tenth editing page-00007.md, with a rename half way.
func logRepo(b *testing.B) string {
	_, dir := fastImport(b, func(w *bytes.Buffer) {
		commitHeader(w, 0, "base")
		for i := 0; i < 1000; i++ {
			inlineFile(w, fmt.Sprintf("EchoesVault/pages/page-%05d.md", i), benchPage(i, 0))
		}
		name := "EchoesVault/pages/page-00007.md"
		for n := 1; n < 1000; n++ {
			commitHeader(w, n, fmt.Sprintf("edit %d\n\nAgent: bench", n))
			if n == 500 {
				fmt.Fprintf(w, "R %s EchoesVault/pages/renamed.md\n", name)
				name = "EchoesVault/pages/renamed.md"
				continue
			}
			if n%10 == 0 {
				inlineFile(w, name, benchPage(7, n))
			} else {
				inlineFile(w, fmt.Sprintf("EchoesVault/pages/page-%05d.md", 100+n%900), benchPage(100+n%900, n))
			}
		}
	})
	return dir
}

// BenchmarkLog1000: git echoes log --follow of one page over 1,000
// commits; BenchmarkGitLogFollow1000 is git log --follow on the same
// repository, the baseline issue 9 names.
func BenchmarkLog1000(b *testing.B) { benchLog(b, logRepo(b)) }

// BenchmarkLog1000CommitGraph and BenchmarkGitLogFollow1000CommitGraph are
// the same with a commit-graph file (git gc writes one), which both read.
func BenchmarkLog1000CommitGraph(b *testing.B) { benchLog(b, logRepoGraph(b)) }

func BenchmarkGitLogFollow1000(b *testing.B) { benchGitLog(b, logRepo(b)) }

func BenchmarkGitLogFollow1000CommitGraph(b *testing.B) { benchGitLog(b, logRepoGraph(b)) }

func logRepoGraph(b *testing.B) string {
	dir := logRepo(b)
	cmd := exec.Command("git", "commit-graph", "write", "--reachable")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	return dir
}

func benchLog(b *testing.B, dir string) {
	e, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := Log(e, LogOptions{Target: "renamed.md", Follow: true})
		if err != nil || len(res.Entries) != 100 {
			b.Fatalf("%v: %d entries", err, len(res.Entries))
		}
	}
}

func benchGitLog(b *testing.B, dir string) {
	for b.Loop() {
		cmd := exec.Command("git", "log", "--follow", "--numstat", "--format=%H %an %aI", "--", "EchoesVault/pages/renamed.md")
		cmd.Dir = dir
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}
