package find

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// cacheDir, the cheap location of the index (LocalCacheDir, which reads
// only the .git entry and commondir), is under the common directory that
// opening the repository reports: in Git, and in a linked worktree (one
// index directory under the shared common directory); outside Git, under
// the runtime directory.
func TestCacheDirIsLocalCacheDir(t *testing.T) {
	for _, inGit := range []bool{false, true} {
		eng := newVault(t, inGit)
		wss := []*gitvault.Workspace{eng.WS}
		if inGit {
			g := testenv.TempGit(t)
			linked := filepath.Join(t.TempDir(), "linked")
			for _, args := range [][]string{
				{"-C", eng.WS.Root, "commit", "-q", "--allow-empty", "-m", "x"},
				{"-C", eng.WS.Root, "worktree", "add", "-q", linked},
			} {
				cmd := exec.Command("git", args...)
				cmd.Env = append(g.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			if runtime.GOOS == "windows" {
				// Under wine the Linux git (tools/winegit) writes a Unix
				// path into the linked worktree's .git file; a path
				// relative to that file both sides understand (as in
				// gitvault's TestLocalCacheDir).
				rel, err := filepath.Rel(linked, filepath.Join(eng.WS.Root, ".git", "worktrees", "linked"))
				if err != nil {
					t.Fatal(err)
				}
				testenv.WriteFile(t, filepath.Join(linked, ".git"), "gitdir: "+filepath.ToSlash(rel)+"\n")
			}
			le, err := gitvault.Open(gitvault.Options{Workspace: linked})
			if err != nil {
				t.Fatal(err)
			}
			wss = append(wss, le.WS)
		}
		for _, ws := range wss {
			want := filepath.Join(ws.RuntimeDir, "cache", "find")
			if inGit {
				repo, err := gitrepo.Open(ws.Root)
				if err != nil {
					t.Fatal(err)
				}
				want = filepath.Join(repo.CommonDir(), "echoes", "find")
			}
			got, err := cacheDir(ws)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("in Git %v, %s: cacheDir = %s, LocalCacheDir = %s", inGit, ws.Root, got, want)
			}
		}
	}
}

// appendFid is fidText's bytes (the stored listing fingerprints keep
// their meaning across the change).
func TestAppendFidIsFidText(t *testing.T) {
	for _, f := range []fsx.Stamp{{}, {Mode: 0o644, Size: 12, Mtime: -5, Ctime: 1 << 62, Dev: 1<<64 - 1, Ino: 42}} {
		if got, want := string(appendFid([]byte("x"), f)), "x"+fidText(f); got != want {
			t.Errorf("appendFid = %q, want %q", got, want)
		}
	}
}
