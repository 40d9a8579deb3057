package viewer

import (
	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/fswatch"
)

// The viewer's change notification (issue 19): WatchTrees starts a watcher
// over what the viewer shows (the vault, the memory roots), and
// Server.WatchState reports its mode for a view to show: "events", or
// "revalidate" with the reason (Windows, a network file system, the watch
// limit, an overflow being recovered from). The viewer's reads still
// revalidate every file per request; using Sync to skip that is the next
// step (see mcpserver/memo.go for the pattern), and until then the state
// says only whether it could.

// WatchTrees starts a watcher over eng's vault and the memory roots
// (the user scope only when user). The caller closes it.
func WatchTrees(eng *gitvault.Engine, roots *memory.Roots, user bool, logf func(string, ...any)) *fswatch.Watcher {
	w := fswatch.New(fswatch.Options{Logf: logf})
	trees := []string{eng.WS.Vault, roots.ScopeRoot("project"), roots.ScopeRoot("team")}
	if user {
		trees = append(trees, roots.ScopeRoot("user"))
	}
	w.Watch(trees...)
	return w
}

// WatchState is the viewer's change-notification state; ok is false when
// the viewer runs without a watcher (Config.Watch).
func (s *Server) WatchState() (state fswatch.State, ok bool) {
	if s.cfg.Watch == nil {
		return fswatch.State{}, false
	}
	return s.cfg.Watch.State(), true
}
