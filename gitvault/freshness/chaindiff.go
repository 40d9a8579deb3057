package freshness

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// chainDiffer diffs the target's first-parent chain ahead of indexTo, on
// other goroutines (issue 18, "Speed"). A cold stale diffs every commit
// of the chain down to the oldest anchor against its first parent, and
// each diff depends only on the two trees: on the benchmark's history
// that pass was half of a cold run, on one core while the others idled.
// The chain is walked again here (commit headers, from the commit-graph
// where there is one) by a dispatcher that hands out blocks of
// consecutive commits (a tree read for one commit's diff is the parent of
// the next, so a block reads each tree once), and workers, each with a
// TreeReader of its own (one is not safe for concurrent use), diff them.
// indexTo takes the blocks in chain order.
//
// Only for a Check of many documents (manyDocs), whose verdicts are
// spread over workers too: a checker that reads the verdicts itself reads
// the same trees again, and with the chain's trees in its own reader's
// cache that was cheaper than diffing elsewhere (SessionStart's few
// recent pages: 20-23 ms without the differ, 23-28 ms with it).
//
// What indexTo does with a diff is unchanged: only where it comes from.
// A step whose trees are not the ones indexTo expects, and any error
// ahead, turn the differ off; indexTo then diffs for itself, as before,
// so an error is the one the sequential pass gives, where it gives it.
// TestParallelReportsAgree compares reports with and without it.
type chainDiffer struct {
	order chan *diffBlock // blocks in chain order
	stop  chan struct{}
	wg    sync.WaitGroup

	next  int        // chain position of the next step indexTo takes
	cur   *diffBlock // the block being taken, done
	taken int        // steps of cur taken
}

type diffBlock struct {
	steps []diffStep
	done  chan struct{}
	err   error
}

type diffStep struct {
	parentTree, tree string
	removed, added   []gitrepo.Entry
}

// chainDiffs switches the differ; tests compare with it off.
var chainDiffs = true

// Look-ahead bounds: blocks start small and double up to
// diffBlockMax, and at most diffBlocksAhead wait, so a run that needs
// only the newest commits diffs few it does not need. Each block starts
// its worker's delta chains afresh where the other worker left off
// (their caches are their own), so long blocks rebuild less: on the
// bench history 1,024 applied 2.5% fewer deltas than 256 and ran a
// cold Check in 0.95 of the time (in process, median of 6).
const (
	diffBlockMin    = 16
	diffBlockMax    = 1024
	diffBlocksAhead = 2
)

// diffTreeCacheBytes and diffObjectCacheBytes bound a diff worker's
// caches. A block is read in order, each commit's tree the next one's
// parent, so few raw trees need be kept (peak RSS of the benchmark's cold
// run: 232 MB with the checker's 64 MiB, 163 MB with 1 MiB, CPU even);
// the rebuilt delta bases need more, but half the checker's bound is
// enough: a worker walks one chain forward, so 8 MiB keeps every base it
// comes back to (the bench history applied the same 40k tree deltas as
// with 16 MiB, with 13% fewer page faults and 0.95x the wall of a cold
// stale, paired, n=15), while 6 MiB rebuilt more and 4 MiB rebuilt a
// fast-import pack's chains from their bases again and again (3.7x the
// deltas, CPU 1.39x).
const (
	diffTreeCacheBytes   = 1 << 20
	diffObjectCacheBytes = 8 << 20
)

// diff returns what position i of the chain changed against its first
// parent: from the differ when it has it, else from k's own reader.
func (k *checker) diff(i int) (removed, added []gitrepo.Entry, err error) {
	fp := k.fp
	parentTree, tree := fp.list[i+1].Tree, fp.list[i].Tree
	if st, ok := k.differStep(i); ok && st.parentTree == parentTree && st.tree == tree {
		return st.removed, st.added, nil
	}
	k.stopDiffer() // off from here: out of step, failed, or never started
	return k.tr.Changed(parentTree, tree, "")
}

// differStep returns the differ's step for position i, starting the
// differ at the first call.
func (k *checker) differStep(i int) (diffStep, bool) {
	if k.differOff {
		return diffStep{}, false
	}
	d := k.differ
	if d == nil {
		if !chainDiffs || !k.manyDocs || runtime.GOMAXPROCS(0) < 2 {
			k.differOff = true
			return diffStep{}, false
		}
		d = k.startDiffer(i)
	}
	if d.next != i {
		return diffStep{}, false
	}
	for d.cur == nil || d.taken == len(d.cur.steps) {
		b, ok := <-d.order
		if !ok {
			return diffStep{}, false // the chain ended
		}
		<-b.done
		if b.err != nil {
			return diffStep{}, false
		}
		d.cur, d.taken = b, 0
	}
	st := d.cur.steps[d.taken]
	d.cur.steps[d.taken] = diffStep{} // indexTo keeps what it needs
	d.taken++
	d.next++
	return st, true
}

// startDiffer walks the chain from position i (fp.list[i] is known, with
// its first parent).
func (k *checker) startDiffer(i int) *chainDiffer {
	d := &chainDiffer{order: make(chan *diffBlock, diffBlocksAhead), stop: make(chan struct{}), next: i}
	k.differ = d
	workers := min(runtime.GOMAXPROCS(0), 4)
	jobs := make(chan *diffBlock)
	start := k.fp.list[i]
	d.wg.Add(1 + workers)
	go func() { // the dispatcher
		defer d.wg.Done()
		defer close(d.order)
		defer close(jobs)
		tr := k.repo.NewTreeReader()
		defer tr.Close()
		if k.sizeHint > 0 {
			tr.ReserveCommits(k.sizeHint) // it walks the chain too
		}
		c, size := start, diffBlockMin
		for {
			b := &diffBlock{done: make(chan struct{})}
			for len(b.steps) < size && len(c.Parents) > 0 && !k.shallow[c.Hash] {
				p, err := safeHeader(tr, c.Parents[0])
				if err != nil {
					b.err = err
					break
				}
				b.steps = append(b.steps, diffStep{parentTree: p.Tree, tree: c.Tree})
				c = p
			}
			if len(b.steps) == 0 && b.err == nil {
				return // the chain ends at c
			}
			select {
			case d.order <- b:
			case <-d.stop:
				return
			}
			if b.err != nil {
				close(b.done)
				return
			}
			select {
			case jobs <- b:
			case <-d.stop:
				close(b.done)
				return
			}
			size = min(2*size, diffBlockMax)
		}
	}()
	for w := 0; w < workers; w++ {
		go func() {
			defer d.wg.Done()
			tr := k.repo.NewTreeReader()
			defer tr.Close()
			tr.SetCacheBytes(diffTreeCacheBytes, diffObjectCacheBytes)
			for b := range jobs {
				diffBlockSteps(d, tr, b)
				close(b.done)
			}
		}()
	}
	return d
}

// diffBlockSteps diffs a block's steps. A panic is kept as the block's
// error: indexTo then diffs that step for itself, and panics there, on
// the caller's goroutine, if it panics again (a caller that recovers,
// the MCP server, goes on; a goroutine's panic would end the process).
func diffBlockSteps(d *chainDiffer, tr *gitrepo.TreeReader, b *diffBlock) {
	defer func() {
		if v := recover(); v != nil {
			b.err = fmt.Errorf("chain differ: panic: %v", v)
		}
	}()
	for j := range b.steps {
		st := &b.steps[j]
		if b.err != nil {
			return
		}
		select {
		case <-d.stop:
			b.err = errDifferStopped
		default:
			st.removed, st.added, b.err = tr.Changed(st.parentTree, st.tree, "")
		}
	}
}

// safeHeader is CommitHeader with a panic kept as the error (see
// diffBlockSteps).
func safeHeader(tr *gitrepo.TreeReader, hash string) (c *gitrepo.Commit, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("chain differ: panic: %v", v)
		}
	}()
	return tr.CommitHeader(hash)
}

var errDifferStopped = errorString("chain differ stopped")

type errorString string

func (e errorString) Error() string { return string(e) }

// stopDiffer turns the differ off and waits for its goroutines, so
// their readers' files are closed (Windows cannot remove an open pack).
func (k *checker) stopDiffer() {
	k.differOff = true
	d := k.differ
	if d == nil {
		return
	}
	k.differ = nil
	close(d.stop)
	for range d.order {
	}
	d.wg.Wait()
}

// close releases what the checker holds.
func (k *checker) close() error {
	k.stopDiffer()
	return k.tr.Close()
}
