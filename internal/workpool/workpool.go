// Package workpool runs the loops that read and parse many files on several
// goroutines: the index render, check and health in gitvault, the memory
// scan and search in gitvault/memory. Every pool here re-raises a panic of a
// worker on the calling goroutine after all workers have exited, as a
// sequential loop would have panicked there, so a caller that recovers (the
// MCP server does) keeps working instead of the process crashing from a
// goroutine it cannot reach.
package workpool

import (
	"sync"
	"sync/atomic"
)

// firstPanic keeps the first panic of several goroutines for re-raising.
type firstPanic struct {
	mu  sync.Mutex
	set bool
	val any
}

// guard calls f and records its panic, if any; it reports whether f
// returned normally. Recording by "did not return" rather than by the
// recovered value keeps even a panic(nil) under GODEBUG=panicnil=1.
func (p *firstPanic) guard(f func()) (ok bool) {
	defer func() {
		if !ok {
			v := recover()
			p.mu.Lock()
			if !p.set {
				p.set, p.val = true, v
			}
			p.mu.Unlock()
		}
	}()
	f()
	return true
}

// reraise panics with the recorded value, if any. Call it after every
// guarded goroutine has finished.
func (p *firstPanic) reraise() {
	if p.set {
		panic(p.val)
	}
}

// Each calls fn(i) for i in [0, n) on up to workers goroutines, handing
// out indices in batches of 64; newWorker is called once per worker
// goroutine for its fn, so a worker can keep state (a reused buffer). With
// one worker (or n < 2) everything runs on the calling goroutine. After a
// panic no new batch is started, and the panic is re-raised on the calling
// goroutine once every worker has exited.
func Each(n, workers int, newWorker func() func(i int)) {
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		fn := newWorker()
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed firstPanic
	next := 0
	const batch = 64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok := failed.guard(func() {
				fn := newWorker()
				for {
					mu.Lock()
					start := next
					next += batch
					mu.Unlock()
					if start >= n {
						return
					}
					end := min(start+batch, n)
					for i := start; i < end; i++ {
						fn(i)
					}
				}
			})
			if !ok {
				mu.Lock()
				next = n
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	failed.reraise()
}

// Ordered calls consume(i, compute(i)) for i = 0, 1, … n-1 in order,
// stopping after consume returns false. compute runs on up to workers
// goroutines, at most window indices ahead of consume; consume always runs
// on the calling goroutine. A panic in compute(i) is re-raised on the
// calling goroutine when consume would have received i (as it would
// have happened there sequentially), so callers that recover keep working.
// Every goroutine has exited when it returns.
func Ordered[T any](n, workers, window int, compute func(int) T, consume func(int, T) bool) {
	if workers <= 1 || n < 2 {
		for i := 0; i < n; i++ {
			if !consume(i, compute(i)) {
				return
			}
		}
		return
	}
	window = max(window, workers)
	type result struct {
		v     T
		panic any
		ok    bool // false: compute(i) panicked with panic
	}
	// Index i travels through slot i%window; the tokens guarantee that a
	// slot's previous index has been consumed before it is reused.
	slots := make([]chan result, window)
	for i := range slots {
		slots[i] = make(chan result, 1)
	}
	tokens := make(chan struct{}, window)
	stop := make(chan struct{})
	var stopped atomic.Bool
	var next atomic.Int64
	var wg sync.WaitGroup
	run := func(i int) (r result) {
		defer func() {
			if !r.ok {
				r.panic = recover()
			}
		}()
		return result{v: compute(i), ok: true}
	}
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case tokens <- struct{}{}:
				case <-stop:
					return
				}
				if stopped.Load() {
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				slots[i%window] <- run(i)
			}
		}()
	}
	var failed *result
	for i := 0; i < n; i++ {
		r := <-slots[i%window]
		<-tokens
		if !r.ok {
			failed = &r
			break
		}
		if !consume(i, r.v) {
			break
		}
	}
	stopped.Store(true)
	close(stop)
	wg.Wait()
	if failed != nil {
		panic(failed.panic)
	}
}

// Chunks calls f over [0, n) split into contiguous chunks, one per
// worker, and returns when all are done. Small inputs (n < 256) and a
// single worker run inline. f must only write state owned by its own
// indices. A panic in f is re-raised on the calling goroutine after every
// chunk has finished.
func Chunks(n, workers int, f func(lo, hi int)) {
	if workers <= 1 || n < 256 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	var failed firstPanic
	size := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += size {
		hi := min(lo+size, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			failed.guard(func() { f(lo, hi) })
		}()
	}
	wg.Wait()
	// Re-raised on the caller's goroutine, where a sequential run
	// would have panicked, so callers that recover keep working.
	failed.reraise()
}
