package gitvault

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// The cache lives in the common directory, so a linked worktree shares it
// with the main one, and outside Git under .echoes-vault/cache; nothing is
// created by asking.
func TestLocalCacheDir(t *testing.T) {
	sb := gitrepotest.New(t)
	root := sb.Init(filepath.Join(t.TempDir(), "repo"))
	ws, err := ResolveWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ws.LocalCacheDir("find")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(ws.Root, ".git", "echoes", "find"); got != want {
		t.Errorf("LocalCacheDir = %q, want %q", got, want)
	}
	testenv.WriteFile(t, filepath.Join(root, "a.txt"), "a")
	linked := filepath.Join(t.TempDir(), "linked")
	sb.Git(root, "add", "a.txt")
	sb.Git(root, "commit", "-qm", "a")
	sb.Git(root, "worktree", "add", "-q", linked)
	if runtime.GOOS == "windows" {
		// Under wine the Linux git (tools/winegit) writes a Unix path into
		// the linked worktree's .git file; Git also reads a path relative
		// to that file, which both sides understand.
		rel, err := filepath.Rel(linked, filepath.Join(root, ".git", "worktrees", "linked"))
		if err != nil {
			t.Fatal(err)
		}
		testenv.WriteFile(t, filepath.Join(linked, ".git"), "gitdir: "+filepath.ToSlash(rel)+"\n")
	}
	lws, err := ResolveWorkspace(linked)
	if err != nil {
		t.Fatal(err)
	}
	if lgot, err := lws.LocalCacheDir("find"); err != nil || lgot != got {
		t.Errorf("linked worktree LocalCacheDir = %q, %v; want %q", lgot, err, got)
	}
	plain := t.TempDir()
	pws, err := ResolveWorkspace(plain)
	if err != nil {
		t.Fatal(err)
	}
	if pgot, _ := pws.LocalCacheDir("find"); pgot != filepath.Join(pws.Root, ".echoes-vault", "cache", "find") {
		t.Errorf("outside Git LocalCacheDir = %q", pgot)
	}
	if _, err := os.Lstat(filepath.Join(pws.Root, ".echoes-vault")); err == nil {
		t.Error("LocalCacheDir created a directory")
	}
}
