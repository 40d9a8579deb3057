package freshness

import (
	"slices"
	"sort"

	"github.com/git-echoes/git-echoes/internal/gctune"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// The target's first-parent chain, walked and diffed once per Check run
// and shared by every citation whose anchor is on it (most of them: a
// page's last change is on the line of the branch it was merged into).
// Each citation used to build its own index of its anchor..target chain
// and its own a..t range, one tree diff per commit per distinct anchor:
// with 1,000 pages anchored at some 200 commits of a 10,000-commit
// history, millions of map insertions for the same diffs. Here the chain
// is read once (headers, from the commit-graph), diffed lazily as far as
// the oldest anchor asks (changedPaths, one diff per commit), and a
// citation's line of descent and range are views of it.
type fpChain struct {
	list    []*gitrepo.Commit // list[0] is the target; list[i+1] is list[i]'s first parent
	pos     map[string]int
	merges  []int            // merges[i]: merge commits among list[0..i]
	ix      map[string][]int // path -> ascending i where list[i] differs from list[i+1]
	paths   [][]string       // paths[i]: the paths (with their directories) list[i] changed against list[i+1]
	indexed int              // list[0..indexed-1] are in ix
	done    bool             // the chain ends at list[len-1] (a root or shallow commit)

	// With changed-path filters (chainfilters.go): the paths ix answers
	// for, and the positions not diffed because their filters lack every
	// one of them (paths[i] is nil there).
	covered map[string]*gitrepo.BloomPath
	skipped map[int]gitrepo.ChangedPathFilter
}

// Sizing for a Check of many documents. A cold stale of a vault walks
// and diffs the target's first-parent chain deep into history, one entry
// per commit in the readers' header memos and the chain's position map,
// about two per commit among the changed files (leaves): grown step by
// step, their rehashing was a twentieth of the run (issue 18, cold). The
// commit-graph's count of commits is the hint, bounded so that a huge
// history whose pages are all recent reserves little it does not use.
const (
	reserveDocs    = 16
	maxReserveHint = 1 << 16
)

// reserveHistory sets sizeHint and sizes the reader's header memo for
// docs documents.
func (k *checker) reserveHistory(docs int) {
	if docs < reserveDocs {
		return
	}
	if k.sizeHint = min(k.tr.GraphCommits(), maxReserveHint); k.sizeHint > 0 {
		k.tr.ReserveCommits(k.sizeHint)
		k.leaves = make(map[treePath]gitrepo.TreeItem, 2*k.sizeHint)
	}
}

// heapEstimate is about the heap a Check of docs documents grows to over
// a history of commits commits (the commit-graph's count; 0 when there is
// none), for gctune.PrefaultHeap. Peak anonymous memory of a cold stale
// --rev main on issue 18's benchmark shape, scaled: 14 MB at 1,000
// commits and 100 pages, 22 MB at 2,000 and 200, 55 MB at 5,000 and 500,
// 97 MB at 10,000 and 1,000 (the delta caches fill, the chain's index
// grows with the commits, the reports with the pages).
func heapEstimate(commits, docs int) int {
	// 8 KiB a commit and 16 KiB a page: 96 MB for the benchmark, 48 MB
	// at half its size, under gctune's 32 MB minimum below 3,000 commits.
	return int(min(int64(commits)<<13+int64(docs)<<14, 1<<30)) // no overflow where int is 32 bits
}

// prefaultHeap and prefaultWanted are gctune's, variables for the tests.
var (
	prefaultHeap   = gctune.PrefaultHeap
	prefaultWanted = gctune.PrefaultWanted
)

// prefaultFor asks gctune to populate, in the background, the heap a
// Check of n documents is about to grow to, when it is a Check of many
// (the chain is then diffed ahead and the verdicts spread over workers):
// the first call in a process that allows it does the work, the others
// nothing. The commit count is the commit-graph's unverified hint (about
// 1 KB read), so that the caller can ask before it reads the pages.
func prefaultFor(repo *gitrepo.Repo, n int) {
	if reportWorkers(n) >= 2 && prefaultWanted() {
		prefaultHeap(heapEstimate(min(repo.CommitCountHint(), maxReserveHint), n))
	}
}

// fpPos returns the position of hash on the target's first-parent chain,
// extending the walk (headers only) as far as needed.
func (k *checker) fpPos(hash string) (int, bool, error) {
	fp := k.fpInit()
	for {
		if i, ok := fp.pos[hash]; ok {
			return i, true, nil
		}
		if more, err := k.fpExtend(); err != nil || !more {
			return 0, false, err
		}
	}
}

func (k *checker) fpInit() *fpChain {
	if k.fp == nil {
		n := max(k.sizeHint, 1)
		fp := &fpChain{list: make([]*gitrepo.Commit, 1, n), pos: make(map[string]int, n), ix: map[string][]int{}}
		if k.filters {
			fp.covered, fp.skipped = map[string]*gitrepo.BloomPath{}, map[int]gitrepo.ChangedPathFilter{}
		}
		fp.list[0], fp.pos[k.target.Hash] = k.target, 0
		fp.merges = make([]int, 1, n)
		if len(k.target.Parents) > 1 {
			fp.merges[0] = 1
		}
		k.fp = fp
	}
	return k.fp
}

// fpExtend appends the first parent of the chain's last commit; false
// when the chain ends there (a root or shallow commit).
func (k *checker) fpExtend() (bool, error) {
	fp := k.fpInit()
	if fp.done {
		return false, nil
	}
	if k.frozen {
		return false, errFrozen
	}
	last := fp.list[len(fp.list)-1]
	if len(last.Parents) == 0 {
		fp.done = true
		return false, nil
	}
	p, err := k.header(last.Parents[0])
	if err != nil {
		return false, err
	}
	if _, loop := fp.pos[p.Hash]; loop {
		fp.done = true // cannot happen in a valid history
		return false, nil
	}
	fp.pos[p.Hash] = len(fp.list)
	fp.list = append(fp.list, p)
	m := fp.merges[len(fp.merges)-1]
	if len(p.Parents) > 1 {
		m++
	}
	fp.merges = append(fp.merges, m)
	return true, nil
}

// chainAnchors anchors the pending pages from the chain's own pass
// (indexTo) when the target's history is linear as far as the oldest
// anchor: there pageAnchors' walk, newest first, visits exactly the
// chain's commits in order, and the chain's diffs say which page each
// commit changed, so the pages cost no second walk with its tree
// comparisons (issue 18, "Speed": a sixth of a cold run). It answers
// false, and writes nothing, at the first merge met while pages are
// pending; pageAnchors then walks the whole history as before. The chain
// indexed so far serves the verdicts either way.
func (k *checker) chainAnchors(cur map[int]string, out []Anchor) (bool, error) {
	fp := k.fpInit()
	pending := map[string][]int{} // path -> pages looked for under it
	for i, p := range cur {
		pending[p] = append(pending[p], i)
		if err := k.cover(p); err != nil {
			return false, err
		}
	}
	found := map[int]Anchor{}
	left := len(cur)
	for i := 0; left > 0; i++ {
		for len(fp.list) <= i+1 && !fp.done {
			if _, err := k.fpExtend(); err != nil {
				return false, err
			}
		}
		c := fp.list[i]
		if len(c.Parents) > 1 {
			return false, nil
		}
		if i+1 >= len(fp.list) {
			// A root or shallow commit: it anchors every page it has.
			for p, pages := range pending {
				if _, has, err := k.tr.Entry(c.Tree, p); err != nil {
					return false, err
				} else if has {
					for _, j := range pages {
						found[j] = Anchor{Commit: c.Hash, Date: c.CommitDate, Shallow: k.shallow[c.Hash], path: p}
					}
				}
			}
			break
		}
		if err := k.indexTo(i + 1); err != nil {
			return false, err
		}
		var moved map[string][]int
		for _, p := range fp.paths[i] {
			pages, ok := pending[p]
			if !ok {
				continue
			}
			delete(pending, p)
			src, err := k.exactRenameSource(fp.list[i+1].Tree, c.Tree, p)
			if err != nil {
				return false, err
			}
			if src != "" {
				// Looked for under the old name from the parent on.
				if moved == nil {
					moved = map[string][]int{}
				}
				moved[src] = append(moved[src], pages...)
				continue
			}
			for _, j := range pages {
				found[j] = Anchor{Commit: c.Hash, Date: c.CommitDate, Shallow: k.shallow[c.Hash], path: p}
			}
			left -= len(pages)
		}
		for p, pages := range moved {
			pending[p] = append(pending[p], pages...)
			if err := k.cover(p); err != nil {
				return false, err
			}
		}
	}
	for i := range cur {
		a, ok := found[i]
		if !ok {
			// Never found changing: not in the target's history (cannot
			// happen for a committed page), anchored at the target as
			// pageAnchors does.
			a = Anchor{Commit: k.target.Hash, Date: k.target.CommitDate}
		}
		out[i] = a
	}
	for i := range cur {
		delete(cur, i)
	}
	return true, nil
}

// indexTo diffs the chain's commits list[0..n-1] against their first
// parents, as far as not done yet. The changed paths go straight into
// the index (and paths[i], a slice), without the set per commit that
// changedPaths builds: 10,000 maps of three keys each were a fifth of a
// cold run (issue 18, "Speed").
func (k *checker) indexTo(n int) error {
	fp := k.fp
	if k.frozen && fp.indexed < n && fp.indexed+1 < len(fp.list) {
		return errFrozen
	}
	if k.leaves == nil {
		k.leaves = map[treePath]gitrepo.TreeItem{}
	}
	for ; fp.indexed < n && fp.indexed+1 < len(fp.list); fp.indexed++ {
		i := fp.indexed
		if k.skip(i) {
			fp.paths = append(fp.paths, nil)
			continue
		}
		removed, added, err := k.diff(i)
		if err != nil {
			return err
		}
		fp.paths = append(fp.paths, k.record(i, removed, added))
	}
	return nil
}

// record indexes what position i of the chain changed (removed: its
// parent's entries, added: its own) and returns the changed paths with
// their directories.
func (k *checker) record(i int, removed, added []gitrepo.Entry) []string {
	fp := k.fp
	var changed []string
	for side, list := range [][]gitrepo.Entry{removed, added} {
		tree := fp.list[i+1].Tree // removed: the parent's entries
		if side == 1 {
			tree = fp.list[i].Tree // added: the commit's
		}
		for _, e := range list {
			k.leaves[treePath{tree, e.Path}] = gitrepo.TreeItem{Name: baseName(e.Path), Mode: e.Mode, Hash: e.Hash}
			// A path already indexed at i has its directories indexed too.
			for p := e.Path; p != "." && p != ""; p = parentDir(p) {
				l := fp.ix[p]
				if len(l) > 0 && l[len(l)-1] == i {
					break
				}
				if len(l) == 0 || l[len(l)-1] < i {
					fp.ix[p] = append(l, i) // the chain pass: in order
				} else {
					// A skipped position diffed later (cover): in place.
					at := sort.SearchInts(l, i)
					if l[at] == i {
						break
					}
					fp.ix[p] = slices.Insert(l, at, i)
				}
				changed = append(changed, p)
			}
		}
	}
	return changed
}

// treePath names the entry at a path of a tree.
type treePath struct{ tree, path string }

// entry is TreeReader.Entry, answered first from the files the chain's
// pass saw change (leaves): the follower and touching look up the changed
// path in the commits on either side of each change, and those lookups
// walked the trees from the root again, each name scanned anew once the
// reader's memo of lookups had turned over.
func (k *checker) entry(tree, p string) (gitrepo.TreeItem, bool, error) {
	if it, ok := k.leaves[treePath{tree, p}]; ok {
		return it, true, nil
	}
	return k.tr.Entry(tree, p)
}

// chainEntry answers entry(list[pos].Tree, p) from the chain's index
// when it can, without reading a tree: where p changed last at or below
// pos (the smallest i >= pos in ix[p]), the diff there recorded the
// entry list[i] has, and no commit between pos and i changed it, so the
// tree at pos has the same (list[j]'s entry at p is list[j+1]'s for
// every j not in ix[p]). That holds only while every position below
// fp.indexed was diffed, so a chain with skipped positions (changed-path
// filters) is not asked; ix holds no position past fp.indexed, so a pos
// beyond it finds none. false when the index cannot tell: p never
// changed at or below pos as far as indexed, p is a directory (the diffs
// record files), or the last change removed it; the caller then reads
// the tree. The target's entries were most of a cold stale's tree reads
// in the verdicts (issue 18, cold): each worker rebuilt the target's
// trees, at the end of a fast-import pack's delta chains, for itself.
func (k *checker) chainEntry(pos int, p string) (gitrepo.TreeItem, bool) {
	fp := k.fp
	if fp == nil || len(fp.skipped) > 0 || pos < 0 {
		return gitrepo.TreeItem{}, false
	}
	l := fp.ix[p]
	j := sort.SearchInts(l, pos)
	if j == len(l) {
		return gitrepo.TreeItem{}, false
	}
	it, ok := k.leaves[treePath{fp.list[l[j]].Tree, p}]
	return it, ok
}

// chainChanges returns what the chain's commit c changed against its
// first parent when the chain's index holds it (c at an indexed position
// whose first parent is the next one), as changedPaths would list it.
func (k *checker) chainChanges(c *gitrepo.Commit) ([]string, bool) {
	fp := k.fp
	if fp == nil || len(c.Parents) == 0 {
		return nil, false
	}
	i, ok := fp.pos[c.Hash]
	if !ok || i >= fp.indexed || fp.list[i+1].Hash != c.Parents[0] {
		return nil, false
	}
	if _, skipped := fp.skipped[i]; skipped {
		return nil, false // not diffed: the caller diffs for itself
	}
	return fp.paths[i], true
}

// fpView is the line of descent from the anchor at position pa of the
// chain to the target, oldest first: at(0) is the anchor, at(pa) the
// target.
type fpView struct {
	fp *fpChain
	pa int
}

func (v fpView) at(j int) *gitrepo.Commit { return v.fp.list[v.pa-j] }

// next returns the first position j' > j of the view where p changes
// (between at(j'-1) and at(j')), or -1.
func (v fpView) next(p string, j int) int {
	list := v.fp.ix[p]
	// The largest i < pa-j in list; then j' = pa-i.
	n := sort.SearchInts(list, v.pa-j)
	if n == 0 {
		return -1
	}
	return v.pa - list[n-1]
}

// linear reports whether anchor..target is the chain's list[0..pa-1]
// exactly: no merge among them (a merge brings in commits off the chain).
func (v fpView) linear() bool { return v.pa >= 1 && v.fp.merges[v.pa-1] == 0 }

// sliceView is a line of descent given as a slice (chain's answer when
// the anchor is off the first-parent chain), with its own index.
type sliceView struct {
	chain []*gitrepo.Commit
	ix    chainIndex
}

func (v sliceView) at(j int) *gitrepo.Commit { return v.chain[j] }
func (v sliceView) next(p string, j int) int { return v.ix.next(p, j) }

type descent interface {
	at(j int) *gitrepo.Commit
	next(p string, j int) int
}

// descentTo returns the line of descent from anchor to the target, and
// the first-parent view when the anchor is on the chain.
func (k *checker) descentTo(anchor string) (descent, *fpView, error) {
	pa, ok, err := k.fpPos(anchor)
	if err != nil {
		return nil, nil, err
	}
	if ok {
		if err := k.indexTo(pa); err != nil {
			return nil, nil, err
		}
		v := fpView{fp: k.fp, pa: pa}
		return v, &v, nil
	}
	chain, err := k.chain(anchor, k.target.Hash)
	if err != nil {
		return nil, nil, err
	}
	ix, err := k.indexChain(anchor+".."+k.target.Hash, chain)
	if err != nil {
		return nil, nil, err
	}
	return sliceView{chain, ix}, nil, nil
}
