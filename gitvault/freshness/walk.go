package freshness

import (
	"container/heap"
	"fmt"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// The history walks of the verdicts: commits in git's revision-walk order
// (newest committer date first, ties in insertion order), read through
// the TreeReader's commit-graph and object readers.

type queued struct {
	c   *gitrepo.Commit
	seq int
}

type commitQueue struct {
	items []*queued
	n     int
}

func (q *commitQueue) Len() int { return len(q.items) }
func (q *commitQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if !a.c.CommitDate.Equal(b.c.CommitDate) {
		return a.c.CommitDate.After(b.c.CommitDate)
	}
	return a.seq < b.seq
}
func (q *commitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *commitQueue) Push(x any)    { q.items = append(q.items, x.(*queued)) }
func (q *commitQueue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return it
}

func (q *commitQueue) push(c *gitrepo.Commit) {
	q.n++
	heap.Push(q, &queued{c: c, seq: q.n})
}

func (q *commitQueue) pop() *gitrepo.Commit { return heap.Pop(q).(*queued).c }

// header reads a commit's tree, parents and date; a shallow commit has no
// parents here (they are not in the clone).
func (k *checker) header(hash string) (*gitrepo.Commit, error) {
	c, err := k.tr.CommitHeader(hash)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", hash, err)
	}
	if k.shallow[hash] && len(c.Parents) > 0 {
		cp := *c
		cp.Parents = nil
		return &cp, nil
	}
	return c, nil
}

// between returns the commits reachable from t and not from a (git's
// a..t), newest first, painting a's ancestors as git's revision walk does
// (a commit reached first from t and later from a is dropped).
func (k *checker) between(a, t string) ([]*gitrepo.Commit, error) {
	key := a + ".." + t
	if r, ok := k.ranges[key]; ok {
		return r, nil
	}
	const (
		interesting   = 1
		uninteresting = 2
	)
	state := map[string]int{}
	var q commitQueue
	var order []*gitrepo.Commit
	push := func(h string, s int) error {
		old := state[h]
		if old == uninteresting || (old == interesting && s == interesting) {
			return nil
		}
		state[h] = s
		c, err := k.header(h)
		if err != nil {
			return err
		}
		q.push(c) // a commit already walked as interesting is walked again to paint its parents
		return nil
	}
	if err := push(a, uninteresting); err != nil {
		return nil, err
	}
	if err := push(t, interesting); err != nil {
		return nil, err
	}
	walked := map[string]bool{}
	// Once only a's side is queued, git's walk stops; dates (equal, or
	// skewed) do not prove that painting would reach no commit t's side
	// already walked. So the walk goes on painting (uninteresting commits
	// only, each once) and prunes by generation number where the
	// commit-graph gives one: a commit can reach only commits of a lower
	// generation, so one at or below the lowest walked generation paints
	// nothing that matters. Without a graph it paints a's history whole.
	draining := false
	minGen := uint32(0)
	for q.Len() > 0 {
		if !draining {
			any := false
			for _, it := range q.items {
				if state[it.c.Hash] == interesting {
					any = true
					break
				}
			}
			if !any {
				live := false
				for _, c := range order {
					if state[c.Hash] == interesting {
						live = true
						break
					}
				}
				if !live {
					break // nothing of t's side is left to paint over
				}
				draining = true
				minGen = k.lowestGeneration(order, func(h string) bool { return state[h] == interesting })
			}
		}
		c := q.pop()
		s := state[c.Hash]
		if draining {
			if s == interesting {
				continue // a stale queue entry of a commit painted since
			}
			if g, ok := k.tr.Generation(c.Hash); ok && g <= minGen {
				continue
			}
		}
		if s == interesting {
			if walked[c.Hash] {
				continue
			}
			walked[c.Hash] = true
			order = append(order, c)
		}
		for _, p := range c.Parents {
			if err := push(p, s); err != nil {
				return nil, err
			}
		}
	}
	out := order[:0:0]
	for _, c := range order {
		if state[c.Hash] == interesting {
			out = append(out, c)
		}
	}
	k.ranges[key] = out
	return out, nil
}

// lowestGeneration is the lowest commit-graph generation among the
// commits of order that keep is true of, or 0 (prune nothing) when one
// of them has none or none is kept.
func (k *checker) lowestGeneration(order []*gitrepo.Commit, keep func(string) bool) uint32 {
	low, found := uint32(0), false
	for _, c := range order {
		if !keep(c.Hash) {
			continue
		}
		g, ok := k.tr.Generation(c.Hash)
		if !ok {
			return 0
		}
		if !found || g < low {
			low, found = g, true
		}
	}
	return low
}

// chain returns a line of descent from a to t (a first, t last): t's
// first-parent chain when a is on it (what git blame --first-parent
// follows), else a shortest path through the commits of a..t.
func (k *checker) chain(a, t string) ([]*gitrepo.Commit, error) {
	key := a + ".." + t
	if r, ok := k.chains[key]; ok {
		return r, nil
	}
	rng, err := k.between(a, t)
	if err != nil {
		return nil, err
	}
	in := map[string]bool{a: true}
	for _, c := range rng {
		in[c.Hash] = true
	}
	var rev []*gitrepo.Commit
	for h := t; ; {
		c, err := k.header(h)
		if err != nil {
			return nil, err
		}
		rev = append(rev, c)
		if h == a {
			break
		}
		if len(c.Parents) == 0 || !in[c.Parents[0]] {
			rev = nil
			break
		}
		h = c.Parents[0]
	}
	if rev == nil {
		// Breadth first from t over parents inside a..t.
		prev := map[string]string{t: ""}
		queue := []string{t}
		found := false
		for len(queue) > 0 && !found {
			h := queue[0]
			queue = queue[1:]
			c, err := k.header(h)
			if err != nil {
				return nil, err
			}
			for _, p := range c.Parents {
				if _, ok := prev[p]; ok || !in[p] {
					continue
				}
				prev[p] = h
				if p == a {
					found = true
					break
				}
				queue = append(queue, p)
			}
		}
		if !found && a != t {
			return nil, fmt.Errorf("commit %s is not an ancestor of %s", short(a), short(t))
		}
		for h := a; h != ""; h = prev[h] {
			c, err := k.header(h)
			if err != nil {
				return nil, err
			}
			rev = append([]*gitrepo.Commit{c}, rev...)
		}
		// rev is t first, as the first-parent case builds it.
	}
	out := make([]*gitrepo.Commit, len(rev))
	for i, c := range rev {
		out[len(rev)-1-i] = c
	}
	k.chains[key] = out
	return out, nil
}

func short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
