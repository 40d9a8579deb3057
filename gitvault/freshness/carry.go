package freshness

import (
	"sync/atomic"
	"time"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// Carrying verdicts forward (issue 18, "Cache verdicts under the Git
// directory keyed by what they depend on"). A report is keyed by its
// target, so every new commit made every report a miss: the first stale,
// SessionStart or PR check after each commit paid a cold run over the
// whole history (on the benchmark's 10,000 commits, 0.45 s and 110 MB
// for a commit that touched one file of 3,000). But a report depends on
// the target only through the history since the document's anchor, and
// when the new target T1 descends from the cached one T0 by a short line
// of commits, each with one parent, that history is T0's plus those
// commits. A document none of them touches has T0's report at T1:
//
//   - a page whose path they do not change keeps its anchor (its last
//     change, or its verified: commit, which cannot be one of them: the
//     page's text named it before it was made) and so its citations;
//   - a memory keeps its anchor when every one of them is dated after
//     its updated_at (the anchor is the newest commit of the first-parent
//     chain dated at or before it);
//   - a citation whose path (and the path it was moved to) they do not
//     change, directories included, has the same commits since the
//     anchor, the same blob and lines at T1, and so the same verdict.
//
// A page with uncommitted changes is anchored at the target itself and is
// never carried. Everything else, and any error on the way, leaves the
// document to Check: like the cache itself, carrying is never the
// authority. TestCarryForwardIsTheColdAnswer compares the two on random
// histories.

// carryStats counts the reports carried forward, for the tests.
var carryStats atomic.Int64

// maxCarryCommits bounds the line of commits read to carry reports over:
// past it, the diffs cost a fair share of what Check would, and a target
// that far ahead is rarer than a commit or a pull.
var maxCarryCommits = 256

// cachedElsewhere is a verdict cache file written for another target.
type cachedElsewhere struct {
	data    []byte
	target  string
	reports map[string]Report // all of them, when already decoded (else nil)
}

// carryForward returns, by index into docs, the reports of prev that hold
// at target.
func carryForward(repo *gitrepo.Repo, tr *gitrepo.TreeReader, prev cachedElsewhere, target string, docs []Doc) map[int]Report {
	if len(prev.target) != 40 {
		return nil
	}
	shallow, err := shallowKey(repo)
	if err != nil {
		return nil
	}
	shallowSet, err := repo.Shallow()
	if err != nil {
		return nil
	}
	changed, dates, ok := lineChanges(tr, shallowSet, prev.target, target)
	if !ok {
		return nil
	}
	keys := make([]string, len(docs))
	for i, d := range docs {
		keys[i] = docKey(prev.target, shallow, d)
	}
	if prev.reports == nil {
		// Only these documents' reports (the SessionStart hook reads a
		// few of a thousand).
		want := make(map[string]bool, len(keys))
		for _, k := range keys {
			want[k] = true
		}
		cf, err := decodeCacheFor(prev.data, want)
		if err != nil {
			return nil
		}
		prev.reports = cf.Reports
	}
	out := map[int]Report{}
docs:
	for i, d := range docs {
		if d.WorkTree || changed[d.Path] {
			continue
		}
		r, ok := prev.reports[keys[i]]
		if !ok {
			continue
		}
		if d.Memory {
			for _, t := range dates {
				if !t.After(d.UpdatedAt) {
					continue docs
				}
			}
		}
		for _, c := range r.Citations {
			if changed[c.Path] || c.NewPath != "" && changed[c.NewPath] {
				continue docs
			}
		}
		out[i] = r
	}
	carryStats.Add(int64(len(out)))
	return out
}

// lineChanges returns the paths (files and every directory above them)
// that the commits from target down to, not including, from change
// against their parents, and those commits' dates; ok is false unless
// from is reached from target within maxCarryCommits commits that each
// have exactly one parent (a merge, a root, a shallow commit or an
// unreadable one: no carrying).
func lineChanges(tr *gitrepo.TreeReader, shallow map[string]bool, from, target string) (changed map[string]bool, dates []time.Time, ok bool) {
	changed = map[string]bool{}
	c, err := tr.CommitHeader(target)
	for n := 0; err == nil && c.Hash != from; n++ {
		if n == maxCarryCommits || len(c.Parents) != 1 || shallow[c.Hash] {
			return nil, nil, false
		}
		var p *gitrepo.Commit
		if p, err = tr.CommitHeader(c.Parents[0]); err != nil {
			break
		}
		removed, added, derr := tr.Changed(p.Tree, c.Tree, "")
		if derr != nil {
			return nil, nil, false
		}
		for _, list := range [][]gitrepo.Entry{removed, added} {
			for _, e := range list {
				for q := e.Path; q != "." && q != "" && !changed[q]; q = parentDir(q) {
					changed[q] = true
				}
			}
		}
		dates = append(dates, c.CommitDate)
		c = p
	}
	if err != nil {
		return nil, nil, false
	}
	return changed, dates, true
}
