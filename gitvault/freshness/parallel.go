package freshness

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/git-echoes/git-echoes/internal/workpool"
)

// The verdicts of a cold run, one document after another, were a third
// of it (issue 18, "Speed": blob reads for line counts, tree lookups for
// each touching commit, decoding commits to describe them), each
// document's independent of the others' once the anchors are known and
// the first-parent chain is indexed as far as they are. reports spreads
// them over workers, each a checker of its own (its own reader and
// memos: neither is safe for concurrent use) sharing the chain read-only
// (frozen). A document whose verdict would extend or index the chain
// further is done afterwards by k itself, in order, as before; so is the
// first error, so Check fails where and as the sequential pass does.
// TestParallelReportsAgree compares the two.

// parallelReports switches the workers; tests compare with them off.
var parallelReports = true

// errFrozen is a frozen checker's answer when a verdict needs the chain
// extended or indexed: that document is done by the checker that owns
// the chain.
var errFrozen = errors.New("the first-parent chain would change")

// reportStats counts who made the reports, for the tests: a worker, or
// the checker that owns the chain.
var reportStats struct{ workers, owner atomic.Int64 }

// minReportsPerWorker: below this many documents each, one goroutine.
const minReportsPerWorker = 8

func (k *checker) reports(docs []Doc, anchors []Anchor) ([]Report, error) {
	out := make([]Report, len(docs))
	done := make([]bool, len(docs)) // by a worker, with no error
	if workers := reportWorkers(len(docs)); parallelReports && workers >= 2 && k.fp != nil {
		// The differ has done what the anchors needed; its goroutines
		// would only compete with the workers from here.
		k.stopDiffer()
		var failed atomic.Bool
		var mu sync.Mutex
		var copies []*checker
		defer func() {
			for _, s := range copies {
				s.close()
			}
		}()
		// workpool re-raises a worker's panic here, as the loop would
		// have panicked, so a caller that recovers (the MCP server) goes
		// on.
		workpool.Each(len(docs), workers, func() func(int) {
			s := k.frozenCopy()
			mu.Lock()
			copies = append(copies, s)
			mu.Unlock()
			return func(i int) {
				if failed.Load() {
					return
				}
				r, err := s.report(&docs[i], anchors[i])
				switch {
				case err == nil:
					out[i], done[i] = r, true
					reportStats.workers.Add(1)
				case !errors.Is(err, errFrozen):
					failed.Store(true) // k does the rest in order
				}
			}
		})
	}
	for i := range docs {
		if done[i] {
			continue
		}
		reportStats.owner.Add(1)
		r, err := k.report(&docs[i], anchors[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", docs[i].Path, err)
		}
		out[i] = r
	}
	return out, nil
}

// reportWorkers is how many workers reports uses for n documents.
func reportWorkers(n int) int {
	return min(runtime.GOMAXPROCS(0), 4, n/minReportsPerWorker)
}

// frozenCopy returns a checker for one worker of reports.
func (k *checker) frozenCopy() *checker {
	s := newChecker(k.repo)
	s.shallow, s.target, s.fp, s.leaves = k.shallow, k.target, k.fp, k.leaves
	s.frozen, s.differOff = true, true
	return s
}
