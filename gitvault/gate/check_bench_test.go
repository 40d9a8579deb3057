package gate

import (
	"fmt"
	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// BenchmarkCheck1kPagesIn100kFiles runs the gate on a 1,000-page vault
// inside a committed repository of 100,000 other files, next to `git
// status` on the same repository. The check reads the index (or the vault's
// subtree) and the vault's files only, so it must not grow with the files
// outside the vault.
func BenchmarkCheck1kPagesIn100kFiles(b *testing.B) {
	sb := gitrepotest.New(b)
	large := gitrepotest.GenerateLarge(b, sb, filepath.Join(b.TempDir(), "large"), 100_000, 42)
	e, err := gitvault.Open(gitvault.Options{Workspace: large.Top})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		testenv.WriteFile(b, filepath.Join(large.Top, fmt.Sprintf("EchoesVault/pages/page-%04d.md", i)),
			fmt.Sprintf("---\ntype: note\nstack: go\nstatus: active\nsummary: Page %d of the benchmark vault.\n---\n# Page %d\n\n%s\n", i, i, benchBody))

	}
	sb.Git(large.Top, "add", "-A")
	sb.Git(large.Top, "commit", "-qm", "large")
	for _, src := range []CheckSource{CheckWorkTree, CheckStaged, CheckRev} {
		if res, err := Check(e, CheckOptions{Source: src, Rev: "HEAD"}); err != nil || !res.OK() || res.Pages != 1000 {
			b.Fatalf("%v: %+v %v", src, res, err)
		}
	}
	for _, src := range []CheckSource{CheckWorkTree, CheckStaged, CheckRev} {
		b.Run(src.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := Check(e, CheckOptions{Source: src, Rev: "HEAD"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The referee: what a user already pays on every commit in this repository.
	b.Run("git-status", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("git", "status", "--porcelain")
			cmd.Dir = large.Top
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git status: %v\n%s", err, out)
			}
		}
	})
}

const benchBody = `A paragraph of ordinary page text that describes a decision, the context in
which it was taken and the consequences that followed, long enough to look
like a real knowledge page rather than a stub.

- a list item
- another list item with ` + "`code`" + `
`
