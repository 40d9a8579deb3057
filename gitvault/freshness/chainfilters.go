package freshness

import (
	"path"
	"sync/atomic"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// Changed-path filters in the chain pass (issue 18, "Speed": "read Git's
// changed-path Bloom filters where the commit-graph has them (git
// commit-graph write --changed-paths, what git log -- PATH uses),
// verified, with a fallback when absent").
//
// A Check of a few documents (the SessionStart hook's recent pages, stale
// PAGE, the pages a new commit touched) diffed every commit of the
// first-parent chain down to the oldest anchor, though it asks about a
// few dozen paths: the pages, their citations, and the names those are
// renamed from or to. With filters, the chain pass asks each commit's
// filter about the paths the checker has asked about so far (covered),
// and a commit whose filter lacks every one of them is not diffed
// (skipped). A path asked about later, a rename's other name, is covered
// then: the skipped commits whose filters may hold it are diffed, and
// what they changed is indexed in place. So the index answers exactly as
// it would with every commit diffed, for every covered path; paths[i]
// of a skipped commit is nil (no covered path changed there), and
// chainChanges of it says "not indexed", so a question about any other
// path diffs for itself. The filters are gitrepo's: a "definitely not"
// only from a well-formed filter of a known hash version; anything else
// is a "maybe", and a maybe is a diff. TestChainFiltersAgree compares
// the reports with and without them.
//
// Not for a Check of many documents: the differ diffs the whole chain on
// other cores there, and thousands of covered paths would cost more in
// filter lookups than the diffs they save (the benchmark's history
// changes a cited file in every commit).

// chainFilters switches the filters; tests compare with them off.
var chainFilters = true

// chainFilterStats counts the commits the chain pass did not diff, for
// the tests.
var chainFilterStats struct{ skipped atomic.Int64 }

// skip reports whether position i of the chain can go undiffed: its
// filter lacks every covered path. It records the filter for cover.
func (k *checker) skip(i int) bool {
	fp := k.fp
	if fp.skipped == nil {
		return false
	}
	f, ok := k.tr.ChangedPathFilter(fp.list[i].Hash)
	if !ok {
		return false
	}
	for _, bp := range fp.covered {
		if f.MaybeChanged(bp) {
			return false
		}
	}
	fp.skipped[i] = f
	chainFilterStats.skipped.Add(1)
	return true
}

// cover makes the chain's index answer for p: from here on the chain pass
// diffs the commits whose filters may hold p, and the skipped ones that
// may are diffed now.
func (k *checker) cover(p string) error {
	if !k.filters {
		return nil
	}
	fp := k.fpInit()
	if _, ok := fp.covered[p]; ok {
		return nil
	}
	if k.frozen {
		return errFrozen // never: a Check with filters has no workers
	}
	bp := k.tr.BloomPath(p)
	fp.covered[p] = bp
	for i, f := range fp.skipped {
		if !f.MaybeChanged(bp) {
			continue
		}
		removed, added, err := k.tr.Changed(fp.list[i+1].Tree, fp.list[i].Tree, "")
		if err != nil {
			return err
		}
		delete(fp.skipped, i)
		chainFilterStats.skipped.Add(-1)
		if k.leaves == nil {
			k.leaves = map[treePath]gitrepo.TreeItem{}
		}
		fp.paths[i] = k.record(i, removed, added)
	}
	return nil
}

// precover covers, before the chain pass, every path the documents may
// cite: their sources: entries and the candidates of their bodies (what
// the report will resolve at the anchor, with a link's second reading),
// and the documents themselves. Covering later is as correct, but each
// path covered after the pass diffs the skipped commits its filters may
// hold out of order, each tree rebuilt from its delta base again: on the
// benchmark's history a page's three citations covered late cost 0.56 s
// of a 0.9 s check, covered here a pass in order.
func (k *checker) precover(docs []Doc) error {
	if !k.filters {
		return nil
	}
	for i := range docs {
		d := &docs[i]
		if err := k.cover(d.Path); err != nil {
			return err
		}
		body := d.Text
		if !d.Memory {
			cites, _ := Sources(d.Text)
			for _, c := range cites {
				if err := k.cover(c.Path); err != nil {
					return err
				}
			}
			body = Body(d.Text)
		}
		for _, c := range Candidates(body, path.Dir(d.Path)) {
			if err := k.cover(c.Path); err != nil {
				return err
			}
			if c.Alt != "" {
				if err := k.cover(c.Alt); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
