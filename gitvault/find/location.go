package find

import (
	"path/filepath"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// cacheDir is ws.LocalCacheDir("find") without opening the repository
// (issue 19: every query opened it, configuration with includes, the Git
// index and the exclude files, only to learn where the index lives): in
// Git the common directory is found from the .git entry and the commondir
// file alone (gitrepo.CommonDirAt); TestCacheDirIsLocalCacheDir keeps the
// two in step.
func cacheDir(ws *gitvault.Workspace) (string, error) {
	if !ws.InGit {
		return ws.LocalCacheDir("find")
	}
	common, err := gitrepo.CommonDirAt(ws.Root)
	if err != nil {
		return "", gitvault.WrapError(err, "Cannot open the Git repository at "+ws.Root+": "+err.Error())
	}
	return filepath.Join(common, "echoes", "find"), nil
}
