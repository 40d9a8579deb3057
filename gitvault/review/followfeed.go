package review

import (
	"container/heap"
	"runtime"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// followStep is one commit of a --follow walk, in the order git log
// shows commits (newest committer date first), with its first parent's
// tree when it has exactly one parent.
type followStep struct {
	c          *gitrepo.Commit
	parentTree string
}

// nextFollow pops the walk's next commit and queues its parents. With
// --follow git does no history simplification (the path changes at a
// rename), so the walk is every commit reachable from the start whatever
// the path does, and it can run ahead of the tree comparisons.
func (w *historyWalk) nextFollow() (followStep, bool, error) {
	if w.queue.Len() == 0 {
		return followStep{}, false, nil
	}
	c := heap.Pop(&w.queue).(*queued).c
	for _, p := range c.Parents {
		if err := w.push(p); err != nil {
			return followStep{}, false, err
		}
	}
	st := followStep{c: c}
	if len(c.Parents) == 1 {
		pt, err := w.treeOf(c.Parents[0]) // push read it: remembered
		if err != nil {
			return followStep{}, false, err
		}
		st.parentTree = pt
	}
	return st, true, nil
}

// followFeed hands Log's --follow loop its commits. Without a
// commit-graph every commit must be inflated to learn its parents and
// date, about half of a log --follow on go-git's history (issue 19, part
// 3); there a second goroutine, with a reader of its own (a TreeReader
// is not safe for concurrent use), walks ahead in batches while the loop
// compares trees, so the two halves overlap on a machine with more than
// one core. The steps, and so the answer, are the same either way:
// TestLogFollowAhead compares the two.
type followFeed struct {
	seq *historyWalk // the loop's own walk, when not walking ahead

	batches <-chan followBatch
	stop    chan struct{}
	buf     []followStep
	err     error // the walk ahead's, after buf
	// panicked: the walk ahead panicked with pval, after buf
	panicked bool
	pval     any
	done     bool
}

type followBatch struct {
	steps []followStep
	err   error
	// panicked: the walk ahead panicked with pval after steps; next
	// panics with it on the loop's goroutine, where the sequential walk
	// would have (a caller that recovers, the MCP server, goes on).
	panicked bool
	pval     any
}

// followAhead chooses the walking-ahead feed when it can pay; tests
// switch it off to compare.
var followAhead = true

// followBatchMax bounds a batch (the first ones are smaller, so the loop
// starts at once); followBatches bounds how many wait, so a walk stopped
// early by --limit has read little it did not need.
const (
	followBatchMax = 128
	followBatches  = 8
)

func newFollowFeed(w *historyWalk, start string) (*followFeed, error) {
	if !followAhead || runtime.GOMAXPROCS(0) < 2 || w.tr.HasCommitGraph() {
		// With a commit-graph, a commit's header is a table lookup:
		// nothing to overlap.
		if err := w.push(start); err != nil {
			return nil, err
		}
		return &followFeed{seq: w}, nil
	}
	ch := make(chan followBatch, followBatches)
	f := &followFeed{batches: ch, stop: make(chan struct{})}
	go func() {
		defer close(ch)
		aw := &historyWalk{repo: w.repo, tr: w.repo.NewTreeReader(), shallow: w.shallow, seen: map[string]bool{}}
		defer aw.tr.Close()
		aw.tr.SetCacheBytes(logTreeCacheBytes, logObjectCacheBytes)
		send := func(b followBatch) bool {
			select {
			case ch <- b:
				return true
			case <-f.stop:
				return false
			}
		}
		// A panic is re-raised by next, after the steps read before it
		// (recorded by "did not return", as workpool does).
		var batch []followStep
		finished := false
		defer func() {
			if !finished {
				send(followBatch{steps: batch, panicked: true, pval: recover()})
			}
		}()
		walkAhead(aw, start, send, &batch)
		finished = true
	}()
	return f, nil
}

// walkAheadPanic, when positive, makes walkAhead panic with that many
// steps in a batch: TestLogFollowAheadPanic.
var walkAheadPanic = 0

// walkAhead walks from start, sending the steps in batches; *batch is
// the one being filled.
func walkAhead(aw *historyWalk, start string, send func(followBatch) bool, batch *[]followStep) {
	if err := aw.push(start); err != nil {
		send(followBatch{err: err})
		return
	}
	size := 8
	*batch = make([]followStep, 0, size)
	for {
		st, ok, err := aw.nextFollow()
		if err != nil {
			send(followBatch{steps: *batch, err: err})
			return
		}
		if !ok {
			break
		}
		*batch = append(*batch, st)
		if walkAheadPanic > 0 && len(*batch) == walkAheadPanic {
			panic("walk ahead: injected")
		}
		if len(*batch) == size {
			if !send(followBatch{steps: *batch}) {
				return
			}
			size = min(size*2, followBatchMax)
			*batch = make([]followStep, 0, size)
		}
	}
	if len(*batch) > 0 {
		send(followBatch{steps: *batch})
	}
	*batch = nil
}

// next returns the next step, false at the end of the walk. An error
// of the walk ahead comes after the steps it read before it, as in the
// sequential walk.
func (f *followFeed) next() (followStep, bool, error) {
	if f.seq != nil {
		return f.seq.nextFollow()
	}
	for len(f.buf) == 0 {
		if f.panicked {
			f.panicked = false
			panic(f.pval)
		}
		if f.err != nil || f.done {
			return followStep{}, false, f.err
		}
		b, ok := <-f.batches
		if !ok {
			f.done = true
			continue
		}
		f.buf, f.err = b.steps, b.err
		if b.panicked {
			f.panicked, f.pval = true, b.pval
		}
	}
	st := f.buf[0]
	f.buf = f.buf[1:]
	return st, true, nil
}

// close stops the walk ahead and waits for it, so its reader's files are
// closed when Log returns (Windows cannot remove an open pack).
func (f *followFeed) close() {
	if f.seq != nil {
		return
	}
	close(f.stop)
	for range f.batches {
	}
}
