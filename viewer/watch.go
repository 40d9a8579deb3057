package viewer

import (
	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/health"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/fswatch"
)

// The viewer's change notification (issue 19): WatchTrees starts a watcher
// over what the viewer shows (the vault, the memory roots), and
// Server.WatchState reports its mode for a view to show: "events", or
// "revalidate" with the reason (Windows, a network file system, the watch
// limit, an overflow being recovered from). The viewer's reads still
// are proven fresh by Sync where it can (fresh): the pages catalog skips
// its stat pass and the overview its inspection of the whole vault
// (health.Inspector) while nothing they read has changed; where Sync
// proves nothing they revalidate every file per request as before.

// WatchTrees starts a watcher over eng's vault and the memory roots
// (the user scope only when user). The caller closes it.
func WatchTrees(eng *gitvault.Engine, roots *memory.Roots, user bool, logf func(string, ...any)) *fswatch.Watcher {
	w := fswatch.New(fswatch.Options{Logf: logf})
	trees := append(health.Trees(eng.WS), roots.ScopeRoot("project"), roots.ScopeRoot("team"))
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

// fresh is the change notification's proof over trees (the
// fswatch.Watcher.Sync contract): ok false, always, without a watcher.
func (s *Server) fresh(trees ...string) (uint64, bool) {
	if s.cfg.Watch == nil {
		return 0, false
	}
	s.cfg.Watch.Watch(trees...) // already watched: nothing; new: moves the generation
	return s.cfg.Watch.Sync(trees...)
}
