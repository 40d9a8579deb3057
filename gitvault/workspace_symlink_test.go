package gitvault

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestWorkspaceUnderSymlinkedParent: macOS puts temporary folders under
// /var, a symlink to /private/var, so a workspace there is reached through a
// symlinked parent. It must resolve to its real path (echoes-conformance §3 steps
// 1-2) and accept writes, not be refused as an escape by the confinement
// check (echoes-conformance §3 step 3), which compares resolved paths on both sides. Here
// tmp/link -> tmp/real and the workspace is tmp/link/ws, given as a path
// and as the working directory (whose logical $PWD goes through the link),
// outside and inside Git.
func TestWorkspaceUnderSymlinkedParent(t *testing.T) {
	for _, inGit := range []bool{false, true} {
		for _, viaCwd := range []bool{false, true} {
			tmp, err := fsx.RealPath(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			real := filepath.Join(tmp, "real")
			ws := filepath.Join(real, "ws")
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			if inGit {
				gitrepotest.New(t).Init(ws)
			}
			testenv.SymlinkOrSkip(t, real, filepath.Join(tmp, "link"))
			via := filepath.Join(tmp, "link", "ws")
			opt := Options{Workspace: via}
			if viaCwd {
				t.Chdir(via) // sets $PWD to the path through the link
				opt = Options{}
			}
			e, err := Open(opt)
			if err != nil {
				t.Fatalf("inGit=%v viaCwd=%v: %v", inGit, viaCwd, err)
			}
			if e.WS.Root != ws || e.WS.InGit != inGit {
				t.Fatalf("root %q (in git %v), want %q", e.WS.Root, e.WS.InGit, ws)
			}
			if err := testInit(e); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Upsert(racePayload("filename", "through-link.md", "content", racePage("Written through a symlinked parent.", "body"))); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Append(racePayload("entry", "- appended through the link", "agent", "test")); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{filepath.Join(ws, "EchoesVault", "pages", "through-link.md"), filepath.Join(ws, "EchoesVault", "index.md")} {
				if !fsx.IsRegular(p) {
					t.Fatalf("%s was not written", p)
				}
			}
			daily := 0
			_ = filepath.WalkDir(filepath.Join(ws, "EchoesVault", "daily"), func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					daily++
				}
				return nil
			})
			if daily != 1 {
				t.Fatalf("%d daily entries, want 1", daily)
			}
		}
	}
}
