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
//
// The common directory is found from the .git entry and the commondir file
// alone (gitrepo.CommonDirAt), not by opening the repository: every find
// and every hydrate asks, and opening reads the configuration with its
// includes, the Git index (100,000 entries on a large vault) and the
// exclude files only to learn a path (issue 19). TestLocalCacheDir
// and find's TestCacheDirIsLocalCacheDir keep it equal to what gitrepo.Open
// reports, linked worktrees included.
func (ws *Workspace) LocalCacheDir(name string) (string, error) {
	if !ws.InGit {
		return filepath.Join(ws.RuntimeDir, "cache", name), nil
	}
	common, err := gitrepo.CommonDirAt(ws.Root)
	if err != nil {
		return "", Wrapf(err, "Cannot open the Git repository at %s", ws.Root)
	}
	return filepath.Join(common, "echoes", name), nil
}
