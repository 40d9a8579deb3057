package health

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// writePages writes n valid pages (about 1 KB each) and renders index.md.
func writePages(b *testing.B, e *gitvault.Engine, n int) {
	b.Helper()
	body := ""
	for i := 0; i < 16; i++ {
		body += "Some durable knowledge about the service boundary and its retry budget.\n"
	}
	for i := 0; i < n; i++ {
		status := "active"
		if i%25 == 0 {
			status = "deprecated"
		}
		testenv.WriteFile(b, filepath.Join(e.WS.Root, "EchoesVault/pages/page-"+strconv.Itoa(i)+".md"),
			"---\ntype: note\nstack: go\nstatus: "+status+"\nsummary: Page number "+strconv.Itoa(i)+"\n---\n"+body)

	}
	if _, err := e.RebuildIndex(); err != nil {
		b.Fatal(err)
	}
}

func benchInspect(b *testing.B, e *gitvault.Engine) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if in := Inspect(e); in.Health.TotalPages == 0 {
			b.Fatal("no pages")
		}
	}
}

// BenchmarkInspectLargeRepo: a 1,000-page vault inside a repository of
// 100,000 committed files, next to `git status` on the same repository.
// inspect reads the index and the exclude rules along the vault's paths
// only, so it should not depend on the files outside the vault.
func BenchmarkInspectLargeRepo(b *testing.B) {
	sb := gitrepotest.New(b)
	repo := gitrepotest.GenerateLarge(b, sb, filepath.Join(b.TempDir(), "repo"), 100000, 1)
	e, err := gitvault.Open(gitvault.Options{Workspace: repo.Top})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		b.Fatal(err)
	}
	writePages(b, e, 1000)
	// No background auto-gc: it would race the temporary directory's removal.
	sb.Git(repo.Top, "config", "gc.auto", "0")
	sb.Git(repo.Top, "config", "maintenance.auto", "false")
	sb.Git(repo.Top, "add", "-A")
	sb.Git(repo.Top, "commit", "-qm", "large")
	if in := Inspect(e); !in.Health.Git.Ready {
		b.Fatalf("not ready: %q", in.Health.GitReadinessIssues)
	}
	b.Run("inspect", func(b *testing.B) { benchInspect(b, e) })
	b.Run("git-status", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			cmd := exec.Command("git", "status", "--porcelain")
			cmd.Dir = repo.Top
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkInspect10kOutsideGit: 10,000 pages, no repository. The
// reference engine takes about 3.6 s here.
func BenchmarkInspect10kOutsideGit(b *testing.B) {
	e, err := gitvault.Open(gitvault.Options{Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		b.Fatal(err)
	}
	writePages(b, e, 10000)
	b.Run("inspect", func(b *testing.B) { benchInspect(b, e) })
}
