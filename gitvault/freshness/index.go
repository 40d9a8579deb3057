package freshness

import (
	"sort"
	"strings"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// Change indexes, built once per Check run and only when a citation
// needs them, so that following 3,000 citations over 10,000 commits
// costs one tree diff per commit instead of one lookup per citation per
// commit. A path is indexed with every directory above it, so directory
// citations are found too.

// changedPaths lists the files that differ between two trees, and every
// directory above them.
func (k *checker) changedPaths(a, b string) (map[string]bool, error) {
	key := a + " " + b
	if s, ok := k.pairs[key]; ok {
		return s, nil
	}
	removed, added, err := k.tr.Changed(a, b, "")
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, list := range [][]gitrepo.Entry{removed, added} {
		for _, e := range list {
			for p := e.Path; p != "." && p != "" && !set[p]; p = parentDir(p) {
				set[p] = true
			}
		}
	}
	k.pairs[key] = set
	return set, nil
}

// commitChanges is what a commit changed as git log -- PATH sees it: for
// one parent, what differs from it; for a merge, what differs from every
// parent; for a root, nothing (a root is never listed).
func (k *checker) commitChanges(c *gitrepo.Commit) (map[string]bool, error) {
	if s, ok := k.changes[c.Hash]; ok {
		return s, nil
	}
	var out map[string]bool
	for i, p := range c.Parents {
		pc, err := k.header(p)
		if err != nil {
			return nil, err
		}
		var set map[string]bool
		if list, ok := k.chainChanges(c); ok && i == 0 {
			// Diffed by the chain's pass already (indexTo).
			set = make(map[string]bool, len(list))
			for _, q := range list {
				set[q] = true
			}
		} else if set, err = k.changedPaths(pc.Tree, c.Tree); err != nil {
			return nil, err
		}
		if i == 0 {
			out = set
			if len(c.Parents) > 1 { // intersected below: keep the memo intact
				out = make(map[string]bool, len(set))
				for q := range set {
					out[q] = true
				}
			}
			continue
		}
		for q := range out {
			if !set[q] {
				delete(out, q)
			}
		}
	}
	if out == nil {
		out = map[string]bool{}
	}
	k.changes[c.Hash] = out
	return out, nil
}

// chainIndex maps each path to the positions i of the chain where it
// differs between chain[i-1] and chain[i], in order.
type chainIndex map[string][]int

func (k *checker) indexChain(key string, chain []*gitrepo.Commit) (chainIndex, error) {
	if ix, ok := k.chainIx[key]; ok {
		return ix, nil
	}
	ix := chainIndex{}
	for i := 1; i < len(chain); i++ {
		set, err := k.changedPaths(chain[i-1].Tree, chain[i].Tree)
		if err != nil {
			return nil, err
		}
		for p := range set {
			ix[p] = append(ix[p], i)
		}
	}
	k.chainIx[key] = ix
	return ix, nil
}

// parentDir is path.Dir for the clean slash-separated paths of a tree
// diff, without path.Clean's copy.
func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}

// next returns the first position after i where p changes, or -1.
func (ix chainIndex) next(p string, i int) int {
	list := ix[p]
	j := sort.SearchInts(list, i+1)
	if j == len(list) {
		return -1
	}
	return list[j]
}

// rangeIndex maps each path to the commits of anchor..target that change
// it, newest first.
func (k *checker) rangeIndex(anchor string) (map[string][]*gitrepo.Commit, error) {
	if ix, ok := k.rangeIx[anchor]; ok {
		return ix, nil
	}
	rng, err := k.between(anchor, k.target.Hash)
	if err != nil {
		return nil, err
	}
	ix := map[string][]*gitrepo.Commit{}
	for _, c := range rng {
		if len(c.Parents) == 0 {
			continue
		}
		set, err := k.commitChanges(c)
		if err != nil {
			return nil, err
		}
		for p := range set {
			ix[p] = append(ix[p], c)
		}
	}
	k.rangeIx[anchor] = ix
	return ix, nil
}
