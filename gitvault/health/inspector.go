package health

import (
	"io/fs"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// Inspector answers Inspect for a long-lived process (the viewer's
// overview, issue 19 item 4): the vault-sized part of an inspection (every
// page read or stamped, the vault walked, Git readiness of every durable
// file) is kept and given again while it is proven that nothing it read
// has changed; the clock-dependent part (today's entries, the lock's age)
// is computed on every call.
//
// The proof has two halves, because what an inspection reads lies in two
// kinds of places:
//
//   - the trees (Trees: the vault, the runtime directory, .claude and
//     .opencode) are covered by change notification: Fresh is
//     fswatch.Watcher.Sync's contract (every change completed before the
//     call moved the generation it returns; ok false proves nothing);
//   - the few files outside them (AGENTS.md, CLAUDE.md, the top-level
//     .gitignore, and everything gitrepo.Open read: HEAD, the config files
//     and their includes, info/exclude, core.excludesFile, the index; see
//     gitrepo.Repo.Sources) are stamped (fsx.Stamp: size, mtime, ctime,
//     inode) before the computation and stamped again on the next call.
//     As in Git's racy test (Documentation/technical/racy-git.txt), a
//     stamp not older than a whole racyGranule than the moment it was
//     taken proves nothing, and neither does a symbolic link (its target
//     may change under an unchanged link).
//
// Whenever either half cannot prove freshness the inspection is computed
// again, exactly as Inspect does; nothing is kept from a computation whose
// sources were not all stamped beforehand.
type Inspector struct {
	eng   *gitvault.Engine
	fresh func(trees ...string) (gen uint64, ok bool)

	mu      sync.Mutex
	kept    *Inspection // inspectFiles's result, never handed out
	gen     uint64      // the trees' generation kept was computed under
	stamps  map[string]fileStamp
	takenAt int64    // when stamps were taken (Unix ns)
	sources []string // the files outside the trees the last computation read

	hits, computed atomic.Int64
}

// fileStamp is a path's stamp, or that it could not be stamped (missing:
// its creation changes the stamp).
type fileStamp struct {
	st  fsx.Stamp
	err bool
}

// racyGranule is the timestamp resolution the racy test allows for (FAT
// keeps modification times in two-second steps), as the page cache's.
const racyGranule = int64(2 * time.Second)

// NewInspector returns an Inspector of e. fresh is the change
// notification over trees (nil: none, every call computes).
func NewInspector(e *gitvault.Engine, fresh func(trees ...string) (uint64, bool)) *Inspector {
	return &Inspector{eng: e, fresh: fresh}
}

// Trees are the directory trees an inspection reads below, for the
// watcher (they need not exist).
func Trees(ws *gitvault.Workspace) []string {
	return []string{ws.Vault, ws.RuntimeDir, filepath.Join(ws.Root, ".claude"), filepath.Join(ws.Root, ".opencode")}
}

// Stats returns how many calls were answered from what was kept and how
// many computed the inspection.
func (x *Inspector) Stats() (hits, computed int64) { return x.hits.Load(), x.computed.Load() }

// Inspect returns what Inspect(e) would return now.
func (x *Inspector) Inspect() *Inspection {
	now := time.Now()
	if x.fresh == nil {
		x.computed.Add(1)
		return Inspect(x.eng)
	}
	gen, ok := x.fresh(Trees(x.eng.WS)...)
	x.mu.Lock()
	defer x.mu.Unlock()
	if !ok {
		x.kept = nil
		x.computed.Add(1)
		return Inspect(x.eng)
	}
	if x.kept != nil && x.gen == gen && x.stampsHold() {
		x.hits.Add(1)
		cp := *x.kept
		cp.live(x.eng.WS, now)
		return &cp
	}
	x.kept = nil
	x.computed.Add(1)
	// Stamp first, then read: a change after the stamp is seen by the
	// next call's stamp, a change after the barrier by its generation.
	stamps, takenAt := x.stamp(x.outside(x.sources))
	var sources []string
	in := inspectFiles(x.eng, func() gitvault.GitReadiness {
		g, src := gitReadiness(x.eng.WS)
		sources = src
		return g
	})
	complete := sources != nil || !x.eng.WS.InGit
	for _, p := range sources {
		if _, ok := stamps[p]; !ok {
			complete = false // read a file that was not stamped before: keep nothing
		}
	}
	x.sources = sources
	if complete {
		kept := *in
		x.kept, x.gen, x.stamps, x.takenAt = &kept, gen, stamps, takenAt
	}
	in.live(x.eng.WS, now)
	return in
}

// outside lists the files outside the trees an inspection reads: the
// workspace's own, and the repository's sources.
func (x *Inspector) outside(sources []string) []string {
	ws := x.eng.WS
	return append([]string{ws.AgentsGuide, ws.ClaudeGuide, filepath.Join(ws.Root, ".gitignore")}, sources...)
}

func (x *Inspector) stamp(paths []string) (map[string]fileStamp, int64) {
	takenAt := time.Now().UnixNano()
	out := make(map[string]fileStamp, len(paths))
	for _, p := range paths {
		st, err := fsx.LstatStamp(p)
		out[p] = fileStamp{st: st, err: err != nil}
	}
	return out, takenAt
}

// stampsHold reports whether every kept stamp is unchanged and proves it:
// not racy, not a symbolic link.
func (x *Inspector) stampsHold() bool {
	for p, old := range x.stamps {
		st, err := fsx.LstatStamp(p)
		cur := fileStamp{st: st, err: err != nil}
		if cur != old || st.Mode&fs.ModeSymlink != 0 || st.Racy(x.takenAt, racyGranule) {
			return false
		}
	}
	return true
}

// gitReadiness is Workspace.GitReadiness, with the files the repository
// was opened from (nil when it was not opened).
func gitReadiness(ws *gitvault.Workspace) (gitvault.GitReadiness, []string) {
	if !ws.InGit {
		return ws.GitReadiness(), nil
	}
	repo, err := gitrepo.Open(ws.Root)
	if err != nil {
		return gitvault.GitReadiness{Available: true, Problem: err.Error()}, nil
	}
	g, err := gitvault.ReadReadiness(repo, ws.DurableCandidates())
	if err != nil {
		return gitvault.GitReadiness{Available: true, Problem: err.Error()}, repo.Sources()
	}
	return g, repo.Sources()
}
