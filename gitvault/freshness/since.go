package freshness

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// The review side of freshness (issue 18, "Review and the CI gate"): which
// pages cite code that a change touches but were not updated in it. The
// gate (check --rev BASE..HEAD, rule memory-stale) and the review (git
// echoes diff) both ask Since; the rule is defined here, once:
//
//   - the change is the commits of base..head, where base is the range's
//     merge base (the caller resolves it; for a pull request, the commit
//     the branch left its target at);
//   - a page counts when it is in the vault at head and its blob is the
//     same at base and at head: a page the change added, edited, renamed
//     or confirmed (git echoes confirm writes verified:) was updated in it
//     and is not reported;
//   - its citations are those of the page at base (the frontmatter
//     sources: entries and the body's implicit ones, resolved against the
//     base tree, exactly as Check reads them), each followed from base to
//     head as a citation of a page anchored at base: a file or directory
//     citation counts when its content differs at head (drifted) or it is
//     gone (missing); a line citation only when one of the cited lines
//     changed (the blame-style line mapping of the verdicts: an edit above
//     the lines moves them and does not count);
//   - a citation renamed with its content intact (moved) is not reported,
//     as git echoes stale --strict does not fail on it; nor is a sources:
//     entry naming a path base did not have, nor cited lines that were
//     past the end of the file at base (no commit of the range changed
//     them);
//   - only the commits of the range are counted and listed.
//
// Cost: one tree comparison of base and head gives the changed paths (and
// every directory above them); a page none of whose citations names one
// of them is dropped before any history is read, so a pull request pays
// for the pages it can affect, not for the vault.

// SinceOptions bound one Since run.
type SinceOptions struct {
	// PagesDir is the repository directory of the pages (default
	// PagesDir).
	PagesDir string
}

// Stale is one citation of an unchanged page that the range made stale.
type Stale struct {
	Page string // the page's repository path
	Result
}

// Since lists the citations of the pages that base..head left stale (see
// above), ordered by page path, then as the page lists them. base must be
// an ancestor of head (a merge base is). It reads the repository only.
func Since(repo *gitrepo.Repo, base, head string, opt SinceOptions) ([]Stale, error) {
	dir := opt.PagesDir
	if dir == "" {
		dir = PagesDir
	}
	if base == head {
		return nil, nil
	}
	bc, err := repo.CommitInfo(base)
	if err != nil {
		return nil, err
	}
	hc, err := repo.CommitInfo(head)
	if err != nil {
		return nil, err
	}
	// One tree reader (its pack and commit-graph readers) for the whole
	// run: the comparison, the page reads and the verdicts.
	k := newChecker(repo)
	defer k.close()
	changed, err := changedSet(k.tr, bc.Tree, hc.Tree)
	if err != nil {
		return nil, err
	}
	if len(changed) == 0 {
		return nil, nil
	}
	files, err := repo.TreeFilesAt(hc.Tree, dir)
	if err != nil {
		return nil, err
	}
	var docs []Doc
	for _, f := range files {
		rest := strings.TrimPrefix(f.Path, dir+"/")
		if strings.Contains(rest, "/") || !strings.HasSuffix(rest, ".md") || (f.Mode != filemode.Regular && f.Mode != filemode.Executable) {
			continue
		}
		if changed[f.Path] {
			continue // updated in the change (added, edited, renamed, confirmed)
		}
		data, err := k.tr.ReadBlob(f.Hash) // the history reader's packs, not go-git's object decoding
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		d := Doc{Path: f.Path, Text: string(data)}
		if Touches(d, changed) {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		return nil, nil
	}
	reps, err := k.checkAt(base, head, docs)
	if err != nil {
		return nil, err
	}
	var out []Stale
	for _, r := range reps {
		for _, c := range r.Citations {
			switch c.Verdict {
			case Drifted:
				// Cited lines past the end of the file at base drift with
				// no commit: the range did not do that.
				if c.Count == 0 {
					continue
				}
			case Missing:
				// A sources: entry naming what base did not have (the
				// change may be adding it) is not made stale by the
				// change.
				if _, ok, err := k.tr.Entry(bc.Tree, c.Path); err != nil {
					return nil, err
				} else if !ok {
					continue
				}
			default:
				continue
			}
			out = append(out, Stale{Page: r.Path, Result: c})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Page < out[j].Page })
	return out, nil
}

// ChangedPaths is the set of paths that differ between two trees: every
// changed, added or removed file and every directory above one.
func ChangedPaths(repo *gitrepo.Repo, a, b string) (map[string]bool, error) {
	tr := repo.NewTreeReader()
	defer tr.Close()
	return changedSet(tr, a, b)
}

func changedSet(tr *gitrepo.TreeReader, a, b string) (map[string]bool, error) {
	removed, added, err := tr.Changed(a, b, "")
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, list := range [][]gitrepo.Entry{removed, added} {
		for _, e := range list {
			for p := e.Path; p != "." && p != "" && !set[p]; p = path.Dir(p) {
				set[p] = true
			}
		}
	}
	return set, nil
}

// Touches reports whether a page may cite a path in changed: one of its
// sources: entries or body candidates (before they are resolved against
// a tree) names a changed file or directory. It is the cheap filter that
// keeps Since from following the citations of pages the change cannot
// affect; a page it keeps may still be fresh (a cited line range the
// change did not reach).
func Touches(d Doc, changed map[string]bool) bool {
	cites, _ := Sources(d.Text)
	for _, c := range cites {
		if changed[c.Path] {
			return true
		}
	}
	for _, c := range Candidates(Body(d.Text), path.Dir(d.Path)) {
		if changed[c.Path] || (c.Alt != "" && changed[c.Alt]) {
			return true
		}
	}
	return false
}

// CheckAt computes the reports of docs with every document anchored at
// the commit anchor (an ancestor of target) instead of at its own last
// change: what the range anchor..target did to the citations the
// documents had at anchor.
func CheckAt(repo *gitrepo.Repo, anchor, target string, docs []Doc) ([]Report, error) {
	k := newChecker(repo)
	defer k.close()
	return k.checkAt(anchor, target, docs)
}

func (k *checker) checkAt(anchor, target string, docs []Doc) ([]Report, error) {
	repo := k.repo
	var err error
	if k.shallow, err = repo.Shallow(); err != nil {
		return nil, err
	}
	if k.target, err = k.header(target); err != nil {
		return nil, err
	}
	ac, err := k.header(anchor)
	if err != nil {
		return nil, err
	}
	// Ancestry by merge base (gitrepo's, git's merge-base --all), not by the
	// checker's a..t walk: that walk can stop before it paints every
	// ancestor when committer dates are equal and the interesting side is
	// the older one (isAncestor's direction).
	if anchor != target {
		bases, err := repo.MergeBases(anchor, target)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(bases, ac.Hash) {
			return nil, fmt.Errorf("commit %s is not an ancestor of %s", short(anchor), short(target))
		}
	}
	out := make([]Report, len(docs))
	for i := range docs {
		r, err := k.report(&docs[i], Anchor{Commit: ac.Hash, Date: ac.CommitDate, Shallow: k.shallow[ac.Hash]})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", docs[i].Path, err)
		}
		out[i] = r
	}
	return out, nil
}

// deltaCacheBytes is the checker's cache of rebuilt pack objects, and
// each diff worker's. Since a tree asked for again is spent (see
// gitrepo's objCache.getSpent), what a walk must keep is the bases still
// below it in each directory's chains, about 5 MB on the benchmark's
// 100 cited directories: its cold stale applied as many deltas with 8
// MiB as with 32, and 16 leaves room for twice the directories. The 32
// MiB each before filled with spent trees: 170-207 MB peak RSS of a
// cold stale, 128 MB now.
const deltaCacheBytes = 16 << 20

// newChecker is a checker with its readers and empty memos, for Check and
// CheckAt (the caller closes k.tr).
func newChecker(repo *gitrepo.Repo) *checker {
	tr := repo.NewTreeReader()
	// The verdicts read every tree of the range in every cited
	// directory: each directory's delta chains must stay cached from one
	// commit to the next (see SetDeltaCacheBytes).
	tr.SetDeltaCacheBytes(deltaCacheBytes)
	return &checker{repo: repo, tr: tr, ranges: map[string][]*gitrepo.Commit{},
		chains: map[string][]*gitrepo.Commit{}, infos: map[string]*gitrepo.Commit{}, blobs: map[string][]string{},
		changes: map[string]map[string]bool{}, pairs: map[string]map[string]bool{}, chainIx: map[string]chainIndex{}, rangeIx: map[string]map[string][]*gitrepo.Commit{},
		leaves: map[treePath]gitrepo.TreeItem{}}
}

// Message is the one-line report of a stale citation, the memory-stale
// finding of check and the line git echoes diff prints: what it cites,
// what the change did to it (the range's commits, bounded), and what to
// do.
func (s Stale) Message() string {
	name := strings.TrimPrefix(path.Base(s.Page), "/")
	var what string
	if s.Verdict == Missing {
		what = "which this change deleted"
		if in, ok := strings.CutPrefix(s.Note, "deleted in "); ok {
			what += " (" + in + ")"
		}
	} else {
		what = "which this change modified in " + s.CommitList()
		if s.NewPath != "" {
			what += ", now " + s.NewPath
		}
	}
	return "cites " + s.Citation.String() + ", " + what + ", and the page was not updated: check it against the code, then update it or run git echoes confirm " + name
}

// CommitList renders a drifted citation's commits: "2 commits (abc1234
// 'subject', def5678 'subject')", at most three named.
func (r Result) CommitList() string {
	n := "1 commit"
	if r.Count != 1 {
		n = strconv.Itoa(r.Count) + " commits"
	}
	var parts []string
	for i, c := range r.Commits {
		if i == 3 {
			parts = append(parts, "and "+strconv.Itoa(r.Count-3)+" more")
			break
		}
		parts = append(parts, c.Short+" "+quoteSubject(c.Subject))
	}
	if len(parts) == 0 {
		return n
	}
	return n + " (" + strings.Join(parts, ", ") + ")"
}
