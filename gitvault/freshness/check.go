package freshness

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-echoes/git-echoes/internal/frontmatter"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/linediff"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Verdict is the state of one citation, or of a whole document.
type Verdict string

// The verdicts (issue 18, "Verdicts"), from best to worst.
const (
	Uncited Verdict = "uncited" // a document without citations
	Fresh   Verdict = "fresh"   // unchanged since the anchor
	Moved   Verdict = "moved"   // renamed with its content (or cited lines) intact
	Drifted Verdict = "drifted" // changed since the anchor
	Missing Verdict = "missing" // deleted since the anchor, or not there at all
)

func (v Verdict) rank() int {
	switch v {
	case Fresh:
		return 1
	case Moved:
		return 2
	case Drifted:
		return 3
	case Missing:
		return 4
	}
	return 0
}

// Worse reports whether v is worse than w.
func (v Verdict) Worse(w Verdict) bool { return v.rank() > w.rank() }

// MaxCommits bounds the commits listed for one drifted citation (the
// count of all of them is given).
const MaxCommits = 10

// Doc is one page or memory to check.
type Doc struct {
	Path string // repository-relative, slash-separated
	Text string // the document as read (work tree or the target's tree)
	// Blob is the id of the committed blob whose bytes are Text, when the
	// document was read from a tree ("" when not). The verdict cache keys
	// the document by it, so Text may be left empty until a verdict must
	// be computed (CheckCached reads it then).
	Blob      string
	Memory    bool // an ECC memory: body citations only, anchored by UpdatedAt
	UpdatedAt time.Time
	// WorkTree marks a page with uncommitted changes: it is anchored at
	// the work tree, that is, it was just written against the code at the
	// target (see Check).
	WorkTree bool
}

// CommitRef is one commit that changed a cited file, directory or lines.
type CommitRef struct {
	Hash    string
	Short   string
	Subject string
	Author  string // "Name <email>"
	Date    time.Time
	Added   int // lines added (for a line citation: inside the cited lines)
	Removed int // lines removed (for a line citation: cited lines lost)
}

// Result is the verdict on one citation.
type Result struct {
	Citation
	Verdict  Verdict
	NewPath  string // where it is at the target when renamed ("" when not)
	NewStart int    // the cited lines' range at the target when they moved (0 when not)
	NewEnd   int
	Commits  []CommitRef // drifted or moved: newest first, at most MaxCommits
	Count    int         // all the commits that changed it since the anchor
	Note     string      // why, when the verdict needs one ("not at the anchor")
}

// Anchor is the commit a document was written (or confirmed) against.
type Anchor struct {
	Commit   string // "" for the work tree
	Date     time.Time
	WorkTree bool // uncommitted changes: anchored at the work tree
	Verified bool // the verified: field moved the anchor
	Shallow  bool // the history ends (a shallow clone) before the document's last change

	path string // the page's path at the anchor commit (renames followed)
}

// Report is the verdict on one document.
type Report struct {
	Path      string
	Memory    bool
	Anchor    Anchor
	Verdict   Verdict
	Citations []Result
	Invalid   []Invalid
}

// checker holds one Check run's readers and memos.
type checker struct {
	repo      *gitrepo.Repo
	tr        *gitrepo.TreeReader
	shallow   map[string]bool
	target    *gitrepo.Commit
	ranges    map[string][]*gitrepo.Commit
	chains    map[string][]*gitrepo.Commit
	infos     map[string]*gitrepo.Commit
	blobs     map[string][]string
	pairs     map[string]map[string]bool              // changedPaths, by tree pair
	changes   map[string]map[string]bool              // commitChanges
	chainIx   map[string]chainIndex                   // indexChain, by range
	rangeIx   map[string]map[string][]*gitrepo.Commit // rangeIndex, by anchor
	fp        *fpChain                                // the target's first-parent chain (fpchain.go)
	leaves    map[treePath]gitrepo.TreeItem           // files seen in the chain's diffs, by tree and path (entry)
	atTarget  map[string]targetItem                   // the target's entries looked up, by path (targetEntry)
	differ    *chainDiffer                            // diffs the chain ahead (chaindiff.go)
	differOff bool                                    // no differ from here on
	frozen    bool                                    // fp and leaves are shared: read only (parallel.go)
	manyDocs  bool                                    // enough documents for workers (parallel.go)
	filters   bool                                    // the chain pass may skip commits by their changed-path filters (chainfilters.go)
	sizeHint  int                                     // commits the chain's maps are made for (reserveHistory)
}

// Check computes the reports of docs against the target commit (a full
// commit id). It reads the repository only.
//
// Anchors: a committed page is anchored at the last commit that changed
// it (a pure rename of the page, content intact, is followed to the
// older name and does not count), or at the commit of its verified:
// field (see applyVerified). A page with uncommitted changes (WorkTree)
// is anchored at the target itself: it was written against the code the
// writer has, so its citations are fresh when they exist at the target
// and missing when they do not. A memory is anchored at the first commit
// of the target's first-parent chain whose committer date is at or
// before its updated_at. In a shallow clone whose history ends before a
// document's last change, the anchor is the shallow boundary and the
// report says so (Anchor.Shallow): drift before it cannot be seen.
func Check(repo *gitrepo.Repo, target string, docs []Doc) ([]Report, error) {
	k := newChecker(repo)
	defer k.close()
	k.manyDocs = reportWorkers(len(docs)) >= 2
	k.filters = chainFilters && !k.manyDocs && k.tr.HasChangedPathFilters()
	// Before anything is allocated for the walk (reserveHistory's maps
	// are its first few megabytes); CheckCached asked already, earlier.
	prefaultFor(repo, len(docs))
	k.reserveHistory(len(docs))
	var err error
	if k.shallow, err = repo.Shallow(); err != nil {
		return nil, err
	}
	if k.target, err = k.header(target); err != nil {
		return nil, err
	}
	if err := k.precover(docs); err != nil {
		return nil, err
	}
	anchors, err := k.anchors(docs)
	if err != nil {
		return nil, err
	}
	return k.reports(docs, anchors)
}

// anchors computes every document's anchor: one shared walk from the
// target for the committed pages, one walk of the first-parent chain for
// the memories.
func (k *checker) anchors(docs []Doc) ([]Anchor, error) {
	out := make([]Anchor, len(docs))
	cur := map[int]string{} // pending page -> its path at the commit being walked
	var mems []int
	for i, d := range docs {
		switch {
		case d.Memory:
			mems = append(mems, i)
		case d.WorkTree:
			out[i] = Anchor{WorkTree: true, Date: k.target.CommitDate}
		default:
			cur[i] = d.Path
		}
	}
	if len(cur) > 0 {
		linear, err := k.chainAnchors(cur, out)
		if err != nil {
			return nil, err
		}
		if !linear {
			if err := k.pageAnchors(cur, out); err != nil {
				return nil, err
			}
		}
		for i := range docs {
			if docs[i].Memory || docs[i].WorkTree {
				continue
			}
			if err := k.applyVerified(&docs[i], &out[i]); err != nil {
				return nil, err
			}
		}
	}
	if len(mems) > 0 {
		sort.SliceStable(mems, func(a, b int) bool { return docs[mems[a]].UpdatedAt.After(docs[mems[b]].UpdatedAt) })
		c := k.target
		for _, i := range mems {
			for c.CommitDate.After(docs[i].UpdatedAt) && len(c.Parents) > 0 {
				next, err := k.header(c.Parents[0])
				if err != nil {
					return nil, err
				}
				c = next
			}
			out[i] = Anchor{Commit: c.Hash, Date: c.CommitDate}
			if c.CommitDate.After(docs[i].UpdatedAt) {
				// Older than every commit: the chain's root is the earliest anchor there is.
				out[i].Shallow = k.shallow[c.Hash]
			}
		}
	}
	return out, nil
}

// pageAnchors walks the target's history newest first and anchors each
// pending page at the first commit that changes it: a commit with one
// parent whose entry differs (a pure rename, content intact, is followed
// to the old name instead), a merge whose entry differs from every
// parent's, a root or shallow commit that has it.
func (k *checker) pageAnchors(cur map[int]string, out []Anchor) error {
	// The pending pages by directory: most commits change no page
	// directory, and one comparison per directory says so.
	byDir := map[string]map[int]bool{}
	for i, p := range cur {
		addPending(byDir, path.Dir(p), i)
	}
	blooms := map[string]*gitrepo.BloomPath{}
	bloomDir := func(dir string) *gitrepo.BloomPath {
		b, ok := blooms[dir]
		if !ok {
			b = k.tr.BloomPath(dir)
			blooms[dir] = b
		}
		return b
	}
	var err error
	var q commitQueue
	seen := map[string]bool{k.target.Hash: true}
	q.push(k.target)
	var moved []int
	for q.Len() > 0 && len(cur) > 0 {
		c := q.pop()
		ptrees := make([]string, len(c.Parents))
		for j, p := range c.Parents {
			pc, err := k.header(p)
			if err != nil {
				return err
			}
			ptrees[j] = pc.Tree
			if !seen[p] {
				seen[p] = true
				q.push(pc)
			}
		}
		moved = moved[:0]
		for dir, pages := range byDir {
			// A directory unchanged against a parent holds no page that
			// this commit changed (against that parent). A directory that
			// changed is diffed once against each parent, and its pages
			// are looked up in those diffs.
			var sets []map[string]bool
			if len(ptrees) > 0 {
				for j, pt := range ptrees {
					same := pt == c.Tree
					if dir != "." && !same {
						if j == 0 && !k.tr.MaybeChanged(c.Hash, bloomDir(dir)) {
							// The commit-graph's changed-path filter says the
							// directory did not change against the first parent
							// (issue 18, "Speed"): no tree read. A "maybe" (and
							// a graph without usable filters) is compared below.
							same = true
						} else if same, err = k.tr.SameEntry(pt, c.Tree, dir); err != nil {
							return err
						}
					}
					if same {
						sets = nil
						break
					}
					set, err := k.changedBelow(pt, c.Tree, dir)
					if err != nil {
						return err
					}
					sets = append(sets, set)
				}
				if sets == nil {
					continue
				}
			}
			for i := range pages {
				p := cur[i]
				if len(ptrees) == 0 {
					_, has, err := k.tr.Entry(c.Tree, p)
					if err != nil {
						return err
					}
					if !has {
						continue
					}
				} else {
					changed := true
					for _, set := range sets {
						if !set[p] {
							changed = false // the same as this parent's
							break
						}
					}
					if !changed {
						continue
					}
				}
				if len(ptrees) == 1 {
					src, err := k.exactRenameSource(ptrees[0], c.Tree, p)
					if err != nil {
						return err
					}
					if src != "" {
						cur[i] = src
						moved = append(moved, i)
						continue
					}
				}
				out[i] = Anchor{Commit: c.Hash, Date: c.CommitDate, Shallow: k.shallow[c.Hash], path: p}
				delete(cur, i)
				delete(pages, i)
			}
			if len(pages) == 0 {
				delete(byDir, dir)
			}
		}
		// Pages renamed here are looked for under their old names from
		// the parent on.
		for _, i := range moved {
			for dir, pages := range byDir {
				if pages[i] {
					delete(pages, i)
					if len(pages) == 0 {
						delete(byDir, dir)
					}
					break
				}
			}
			addPending(byDir, path.Dir(cur[i]), i)
		}
	}
	// A page the walk never found changing is not in the target's history
	// (cannot happen for a committed page); anchor it at the target.
	for i := range cur {
		out[i] = Anchor{Commit: k.target.Hash, Date: k.target.CommitDate}
	}
	return nil
}

func addPending(byDir map[string]map[int]bool, dir string, i int) {
	if byDir[dir] == nil {
		byDir[dir] = map[int]bool{}
	}
	byDir[dir][i] = true
}

// changedBelow lists the paths below dir ("." for the root) that differ
// between two trees, with every directory between them and dir.
func (k *checker) changedBelow(a, b, dir string) (map[string]bool, error) {
	prefix := dir
	if dir == "." {
		prefix = ""
	}
	removed, added, err := k.tr.Changed(a, b, prefix)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, list := range [][]gitrepo.Entry{removed, added} {
		for _, e := range list {
			for q := e.Path; q != dir && q != "." && q != "" && !set[q]; q = parentDir(q) {
				set[q] = true
			}
		}
	}
	return set, nil
}

// exactRenameSource returns the path in the parent tree that p was renamed
// from with its content intact (same blob and mode, the old path gone), or
// "".
func (k *checker) exactRenameSource(ptree, tree, p string) (string, error) {
	// Through entry: the chain's pass has usually just seen p change, so
	// both sides are among its leaves, and a page kept under its name
	// (the common case) is told without a lookup in the pages directory's
	// trees, whose name index is built per tree (issue 18, "Speed": a
	// tenth of the SessionStart addition without stale's cache).
	it, ok, err := k.entry(tree, p)
	if err != nil || !ok {
		return "", err
	}
	if _, had, err := k.entry(ptree, p); err != nil || had {
		return "", err
	}
	top, _, _ := strings.Cut(p, "/")
	if top == p {
		top = ""
	}
	removed, added, err := k.tr.Changed(ptree, tree, top)
	if err != nil {
		return "", err
	}
	now := map[string]bool{}
	for _, a := range added {
		now[a.Path] = true
	}
	for _, r := range removed {
		if r.Hash == it.Hash && r.Mode == it.Mode && !now[r.Path] {
			if _, still, err := k.tr.Entry(tree, r.Path); err != nil {
				return "", err
			} else if !still {
				return r.Path, nil
			}
		}
	}
	return "", nil
}

// applyVerified moves a page's anchor to its verified: commit V (written
// by git echoes confirm) when V is in the target's history and either
// descends from the page's last change C, or is an ancestor of C and C
// changed nothing of the page but the verified: line: the commit that
// records a confirmation (and anything committed with it) comes after
// the code the page was checked against, so drift is counted from V. A
// page edited after V is anchored at that edit as any page is, and a V
// that is not in this history (a rebased branch) is ignored.
func (k *checker) applyVerified(d *Doc, a *Anchor) error {
	v, _, ok := Verified(d.Text)
	if !ok || v == a.Commit || a.Commit == "" {
		return nil
	}
	if _, err := k.header(v); err != nil {
		return nil // not in this repository
	}
	inTarget, err := k.isAncestor(v, k.target.Hash)
	if err != nil || !inTarget {
		return err
	}
	after, err := k.isAncestor(a.Commit, v)
	if err != nil {
		return err
	}
	if !after {
		before, err := k.isAncestor(v, a.Commit)
		if err != nil || !before {
			return err
		}
		only, err := k.onlyVerifiedChanged(a.Commit, a.path)
		if err != nil || !only {
			return err
		}
	}
	vc, err := k.header(v)
	if err != nil {
		return err
	}
	*a = Anchor{Commit: v, Date: vc.CommitDate, Verified: true, path: a.path}
	return nil
}

// onlyVerifiedChanged reports whether commit c changed the page at p
// only in its verified: line (compared with its first parent).
func (k *checker) onlyVerifiedChanged(c, p string) (bool, error) {
	cc, err := k.header(c)
	if err != nil || len(cc.Parents) == 0 || p == "" {
		return false, err
	}
	pc, err := k.header(cc.Parents[0])
	if err != nil {
		return false, err
	}
	now, err := k.linesAt(cc.Tree, p)
	if err != nil {
		return false, err
	}
	before, err := k.linesAt(pc.Tree, p)
	if err != nil || before == nil {
		return false, err
	}
	return withoutVerified(strings.Join(now, "")) == withoutVerified(strings.Join(before, "")), nil
}

// withoutVerified drops the verified: line of a page's frontmatter.
func withoutVerified(text string) string {
	stripped := pytext.Strip(text)
	block, err := frontmatter.Scan(stripped)
	if err != nil {
		return stripped
	}
	k, ok := block.Get("verified")
	if !ok {
		return stripped
	}
	lines := pytext.SplitLines(stripped)
	return strings.Join(append(append([]string{}, lines[:k.Line]...), lines[k.Line+1:]...), "\n")
}

// isAncestor reports whether a is b or one of its ancestors. It walks b's
// ancestors (the shallow boundary ends them) and never cuts the walk by
// committer date: with equal or skewed dates such a cut-off answers wrongly
// (it did: every date equal, a far behind b). Where the commit-graph gives
// generation numbers the walk skips every commit whose generation is not
// above a's (none of those descends from a), and every commit the graph
// lists when a is not in it (the graph is closed under parents, so such a
// commit has no ancestor outside it). Without a graph it reads the whole
// history below b in the worst case.
func (k *checker) isAncestor(a, b string) (bool, error) {
	if a == b {
		return true, nil
	}
	ga, aGen := k.tr.Generation(a)
	aInGraph := aGen || k.tr.InCommitGraph(a)
	prune := func(c string) bool {
		if aGen {
			g, ok := k.tr.Generation(c)
			return ok && g <= ga
		}
		return !aInGraph && k.tr.InCommitGraph(c)
	}
	seen := map[string]bool{b: true}
	stack := []string{b}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c, err := k.header(h)
		if err != nil {
			return false, err
		}
		for _, p := range c.Parents {
			if p == a {
				return true, nil
			}
			if seen[p] || prune(p) {
				continue
			}
			seen[p] = true
			stack = append(stack, p)
		}
	}
	return false, nil
}

// report computes one document's citations and verdicts.
func (k *checker) report(d *Doc, a Anchor) (Report, error) {
	r := Report{Path: d.Path, Memory: d.Memory, Anchor: a}
	anchorCommit := a.Commit
	if a.WorkTree {
		anchorCommit = k.target.Hash
	}
	ac, err := k.header(anchorCommit)
	if err != nil {
		return r, err
	}
	var cites []Citation
	type span struct {
		path       string
		start, end int
	}
	seen := map[span]bool{}
	body := d.Text
	if !d.Memory {
		var bad []Invalid
		cites, bad = Sources(d.Text)
		r.Invalid = bad
		for _, c := range cites {
			seen[span{c.Path, c.Start, c.End}] = true
		}
		body = Body(d.Text)
	}
	implicit := 0
	for _, cand := range Candidates(body, path.Dir(d.Path)) {
		if implicit >= MaxImplicit {
			break
		}
		c, ok, err := k.resolve(ac.Tree, cand)
		if err != nil {
			return r, err
		}
		if !ok || seen[span{c.Path, c.Start, c.End}] || c.Path == d.Path {
			continue
		}
		seen[span{c.Path, c.Start, c.End}] = true
		cites = append(cites, c)
		implicit++
	}
	r.Verdict = Uncited
	for _, c := range cites {
		res, err := k.verdict(c, ac)
		if err != nil {
			return r, fmt.Errorf("%s: %w", c, err)
		}
		r.Citations = append(r.Citations, res)
		if r.Verdict == Uncited || res.Verdict.Worse(r.Verdict) {
			r.Verdict = res.Verdict
		}
	}
	return r, nil
}

// resolve turns a body candidate into a citation when it names a tracked
// path at the anchor: a link target relative to the document's directory
// (Markdown's rule) or, failing that, to the repository; a code span
// relative to the repository. A line citation must name a file.
func (k *checker) resolve(tree string, cand Candidate) (Citation, bool, error) {
	try := []string{cand.Path}
	if cand.Alt != "" {
		try = append(try, cand.Alt)
	}
	for _, p := range try {
		it, ok, err := k.tr.Entry(tree, p)
		if err != nil {
			return Citation{}, false, err
		}
		if !ok || (cand.Start != 0 && !isFile(it.Mode)) || it.Mode == filemode.Submodule {
			continue
		}
		c := cand.Citation
		c.Path = p
		return c, true, nil
	}
	return Citation{}, false, nil
}

func isFile(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Symlink
}

// verdict follows one citation from the anchor commit to the target.
func (k *checker) verdict(c Citation, anchor *gitrepo.Commit) (Result, error) {
	res := Result{Citation: c, Verdict: Fresh}
	ea, ok, err := k.anchorEntry(anchor, c.Path)
	if err != nil {
		return res, err
	}
	if !ok || (c.Start != 0 && !isFile(ea.Mode)) {
		res.Verdict, res.Note = Missing, "not at the anchor"
		if ok {
			res.Note = "not a file at the anchor"
		}
		return res, nil
	}
	if anchor.Hash == k.target.Hash {
		return res, nil
	}
	if et, ok, err := k.targetEntry(c.Path); err != nil {
		return res, err
	} else if ok && et.Hash == ea.Hash && et.Mode == ea.Mode {
		return res, nil // the same content: nothing that happened in between matters
	}
	line, fpv, err := k.descentTo(anchor.Hash)
	if err != nil {
		return res, err
	}
	f := follower{k: k, path: c.Path, item: ea, lines: c.Start != 0}
	if f.lines {
		if err := f.startLines(c.Start, c.End); err != nil {
			return res, err
		}
	}
	names := map[string]bool{c.Path: true}
	// Only the commits of the chain that change the path can change the
	// citation: step from one to the next (the path may change on a rename).
	// Each path is covered before the chain's index is asked about it
	// (chainfilters.go).
	if err := k.cover(f.path); err != nil {
		return res, err
	}
	for i := line.next(f.path, 0); i > 0 && !f.gone; i = line.next(f.path, i) {
		if err := f.step(line.at(i-1), line.at(i)); err != nil {
			return res, err
		}
		names[f.path] = true
		if err := k.cover(f.path); err != nil {
			return res, err
		}
	}
	switch {
	case f.gone:
		res.Verdict = Missing
		res.Note = "deleted in " + short(f.goneIn)
	case f.lines:
		if f.path != c.Path {
			res.NewPath = f.path
		}
		s, e, all := f.survivors()
		switch {
		case all && f.path != c.Path:
			res.Verdict = Moved
		case all:
			res.Verdict = Fresh
		default:
			res.Verdict = Drifted
		}
		if all && (s != c.Start || e != c.End) {
			res.NewStart, res.NewEnd = s, e
		}
		if res.Verdict == Drifted {
			res.Commits, res.Count = f.touched, len(f.touched)
		}
	default:
		et, _, err := k.targetEntry(f.path)
		if err != nil {
			return res, err
		}
		if f.path != c.Path {
			res.NewPath = f.path
		}
		switch {
		case et.Hash == ea.Hash && et.Mode == ea.Mode && f.path != c.Path:
			res.Verdict = Moved
		case et.Hash == ea.Hash && et.Mode == ea.Mode:
			res.Verdict = Fresh
		default:
			res.Verdict = Drifted
			list, err := k.touching(anchor.Hash, fpv, names, isFile(ea.Mode))
			if err != nil {
				return res, err
			}
			res.Commits, res.Count = list, len(list)
		}
	}
	if len(res.Commits) > MaxCommits {
		res.Commits = res.Commits[:MaxCommits]
	}
	if res.Verdict == Drifted || res.Verdict == Missing || res.Verdict == Moved {
		for i := range res.Commits {
			if err := k.describe(&res.Commits[i]); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// targetItem is a lookup of one path in the target's tree.
type targetItem struct {
	it gitrepo.TreeItem
	ok bool
}

// anchorEntry is the entry at p in the anchor's tree, from the chain's
// index when the anchor is on the chain and the index can tell
// (chainEntry).
func (k *checker) anchorEntry(anchor *gitrepo.Commit, p string) (gitrepo.TreeItem, bool, error) {
	if k.fp != nil {
		if i, on := k.fp.pos[anchor.Hash]; on {
			if it, ok := k.chainEntry(i, p); ok {
				return it, true, nil
			}
		}
	}
	return k.tr.Entry(anchor.Tree, p)
}

// targetEntry is entry in the target's tree, remembered by path: each
// citation looks its path up there once or twice, and a path is often
// cited by more than one page. Those lookups walked the trees from the
// root each time once the reader's memo of names had turned over (a
// twentieth of a cold stale's verdicts).
func (k *checker) targetEntry(p string) (gitrepo.TreeItem, bool, error) {
	if e, ok := k.atTarget[p]; ok {
		return e.it, e.ok, nil
	}
	it, ok := k.chainEntry(0, p)
	if !ok {
		var err error
		if it, ok, err = k.entry(k.target.Tree, p); err != nil {
			return it, ok, err
		}
	}
	if k.atTarget == nil {
		k.atTarget = map[string]targetItem{}
	}
	k.atTarget[p] = targetItem{it, ok}
	return it, ok, nil
}

// touching lists the commits of anchor..target that change any of the
// names (the citation's path and the names it was renamed to), newest
// first: a commit with one parent whose entry differs, a merge whose
// entry differs from every parent's. For files it counts the lines each
// commit added and removed.
//
// When the range is the first-parent chain's list[0..pa-1] with no merge
// (fpv linear), its commits that change a name are read off the chain's
// index, newest first, without a walk of the range.
func (k *checker) touching(anchor string, fpv *fpView, names map[string]bool, file bool) ([]CommitRef, error) {
	var commits []*gitrepo.Commit
	var parents []*gitrepo.Commit // commits[i]'s first parent, when known
	if fpv != nil && fpv.linear() {
		seen := map[int]bool{}
		var at []int
		for name := range names {
			for _, i := range fpv.fp.ix[name] {
				if i >= fpv.pa {
					break
				}
				if !seen[i] {
					seen[i] = true
					at = append(at, i)
				}
			}
		}
		sort.Ints(at)
		for _, i := range at {
			// i < pa: list[i+1] is on the chain, list[i]'s first parent
			// (a worker's reader would look its header up again).
			commits = append(commits, fpv.fp.list[i])
			parents = append(parents, fpv.fp.list[i+1])
		}
	} else {
		ix, err := k.rangeIndex(anchor)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for name := range names {
			for _, c := range ix[name] {
				if !seen[c.Hash] {
					seen[c.Hash] = true
					commits = append(commits, c)
				}
			}
		}
		rng, err := k.between(anchor, k.target.Hash)
		if err != nil {
			return nil, err
		}
		order := make(map[string]int, len(commits))
		if len(names) > 1 {
			for i, c := range rng {
				if seen[c.Hash] {
					order[c.Hash] = i
				}
			}
			sort.SliceStable(commits, func(i, j int) bool { return order[commits[i].Hash] < order[commits[j].Hash] })
		}
	}
	var out []CommitRef
	for n, c := range commits {
		ref := CommitRef{Hash: c.Hash, Date: c.CommitDate}
		if file && len(out) < MaxCommits {
			var pc *gitrepo.Commit
			if parents != nil {
				pc = parents[n]
			} else {
				var err error
				if pc, err = k.header(c.Parents[0]); err != nil {
					return nil, err
				}
			}
			changed, err := k.changedBy(c)
			if err != nil {
				return nil, err
			}
			for name := range names {
				if !changed(name) {
					continue
				}
				before, err := k.linesAt(pc.Tree, name)
				if err != nil {
					return nil, err
				}
				after, err := k.linesAt(c.Tree, name)
				if err != nil {
					return nil, err
				}
				added, removed := lineCounts(before, after)
				ref.Added += added
				ref.Removed += removed
			}
		}
		out = append(out, ref)
	}
	return out, nil
}

// lineCounts returns the lines a diff from before to after adds and
// removes. The lines common to both ends are never in a hunk (the diff
// trims them first, and sliding a hunk moves it without changing its
// size), so when what is left between them is at most one line on a side
// the counts are that: a one-line edit, the commonest change, costs no
// diff (issue 18, cold: 10,000 of them on the bench history).
func lineCounts(before, after []string) (added, removed int) {
	i := 0
	for i < len(before) && i < len(after) && before[i] == after[i] {
		i++
	}
	j := 0
	for j < len(before)-i && j < len(after)-i && before[len(before)-1-j] == after[len(after)-1-j] {
		j++
	}
	n1, n2 := len(before)-i-j, len(after)-i-j
	if n1 == 0 || n2 == 0 || (n1 == 1 && n2 == 1) {
		return n2, n1
	}
	for _, h := range linediff.Lines(before, after) {
		added += h.Chg2
		removed += h.Chg1
	}
	return added, removed
}

// changedBy reports which paths commit c changed, as commitChanges
// does; a commit of the first-parent chain with one parent is answered
// from the chain's pass (indexTo), without a set built for it.
func (k *checker) changedBy(c *gitrepo.Commit) (func(string) bool, error) {
	if len(c.Parents) == 1 {
		if list, ok := k.chainChanges(c); ok {
			return func(p string) bool { return slices.Contains(list, p) }, nil
		}
	}
	set, err := k.commitChanges(c)
	if err != nil {
		return nil, err
	}
	return func(p string) bool { return set[p] }, nil
}

// describe fills a commit's subject, author and author date.
func (k *checker) describe(ref *CommitRef) error {
	c, ok := k.infos[ref.Hash]
	if !ok {
		var err error
		if c, err = k.tr.Commit(ref.Hash); err != nil {
			return fmt.Errorf("read commit %s: %w", ref.Hash, err)
		}
		k.infos[ref.Hash] = c
	}
	ref.Short = short(c.Hash)
	ref.Subject, _, _ = strings.Cut(strings.TrimSpace(c.Message), "\n")
	ref.Subject = strings.TrimSpace(ref.Subject)
	ref.Author = c.AuthorName + " <" + c.AuthorEmail + ">"
	ref.Date = c.AuthorDate
	return nil
}

// linesAt returns the lines (terminators kept) of the file at p in tree,
// none when it is absent or not a file.
func (k *checker) linesAt(tree, p string) ([]string, error) {
	it, ok, err := k.entry(tree, p)
	if err != nil || !ok || !isFile(it.Mode) {
		return nil, err
	}
	return k.blobLines(it.Hash)
}

func (k *checker) blobLines(hash string) ([]string, error) {
	if l, ok := k.blobs[hash]; ok {
		return l, nil
	}
	data, err := k.tr.BlobView(hash)
	if err != nil {
		return nil, err
	}
	// BlobView's bytes are never written to (neither here nor by the
	// reader): the lines are views of them, not a copy (issue 18, cold).
	l := splitLines(unsafe.String(unsafe.SliceData(data), len(data)))
	if len(k.blobs) > 256 {
		k.blobs = map[string][]string{}
	}
	k.blobs[hash] = l
	return l, nil
}

// splitLines splits after each "\n", as git's diff reads records.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
