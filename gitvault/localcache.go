package gitvault

import (
	"path/filepath"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// LocalCacheDir is the directory of a derived, local, never-committed cache
// called name (the ranked-search index, the parsed-page cache): under the Git
// common directory (`.git/echoes/<name>`, shared by linked worktrees, never
// part of any tree) or, outside Git, under the runtime directory
// (`.echoes-vault/cache/<name>`). The directory is not created here: callers
// Create it when they write, so a read-only command leaves nothing behind.
// Such caches are never authoritative: deleting one loses
// nothing, and a reader that cannot trust one rebuilds it (design, "Beyond
// the seeds": caches and indexes keyed by file identity).
func (ws *Workspace) LocalCacheDir(name string) (string, error) {
	if !ws.InGit {
		return filepath.Join(ws.RuntimeDir, "cache", name), nil
	}
	repo, err := gitrepo.Open(ws.Root)
	if err != nil {
		return "", Wrapf(err, "Cannot open the Git repository at %s", ws.Root)
	}
	return filepath.Join(repo.CommonDir(), "echoes", name), nil
}
