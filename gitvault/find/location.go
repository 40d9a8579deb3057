package find

import (
	"github.com/git-echoes/git-echoes/gitvault"
)

// cacheDir is where the index lives: ws.LocalCacheDir("find"), which finds
// the Git common directory from the .git entry and the commondir file
// alone (issue 19: every query used to open the whole repository,
// configuration with includes, the Git index and the exclude files, only
// to learn this path).
func cacheDir(ws *gitvault.Workspace) (string, error) {
	return ws.LocalCacheDir("find")
}

// CacheDir is the directory of the ranked-search index of ws (it may not
// exist): hydrate refreshes an index only where one was built.
func CacheDir(ws *gitvault.Workspace) (string, error) { return cacheDir(ws) }
