package workpool

import (
	"sync/atomic"
	"testing"
)

func TestOrderedStopsAndVisitsInOrder(t *testing.T) {
	for _, workers := range []int{1, 2, 5} {
		for _, n := range []int{0, 1, 2, 7, 100} {
			for stopAt := -1; stopAt < n; stopAt += max(1, n/5) {
				var seen []int
				Ordered(n, workers, 3, func(i int) int { return i * i }, func(i, v int) bool {
					if v != i*i {
						t.Fatalf("index %d got %d", i, v)
					}
					seen = append(seen, i)
					return i != stopAt
				})
				want := n
				if stopAt >= 0 {
					want = stopAt + 1
				}
				if len(seen) != want {
					t.Fatalf("workers %d n %d stop %d: visited %v", workers, n, stopAt, seen)
				}
				for k, i := range seen {
					if k != i {
						t.Fatalf("out of order: %v", seen)
					}
				}
			}
		}
	}
}

// TestParallelHelpersRaisePanicsOnCaller: a panic in a worker reaches the
// calling goroutine (the MCP server recovers there), only for indices the
// sequential loop would have reached.
func TestParallelHelpersRaisePanicsOnCaller(t *testing.T) {
	catch := func(f func()) (p any) {
		defer func() { p = recover() }()
		f()
		return nil
	}
	for _, workers := range []int{1, 2, 4} {
		p := catch(func() {
			Ordered(50, workers, 4, func(i int) int {
				if i == 17 {
					panic("boom")
				}
				return i
			}, func(i, v int) bool { return true })
		})
		if p != "boom" {
			t.Fatalf("workers %d: recovered %v", workers, p)
		}
		// Stopping before the failing index never raises it.
		p = catch(func() {
			Ordered(50, workers, 4, func(i int) int {
				if i == 17 {
					panic("boom")
				}
				return i
			}, func(i, v int) bool { return i < 10 })
		})
		if p != nil {
			t.Fatalf("workers %d: panic past the stop: %v", workers, p)
		}
		p = catch(func() {
			Chunks(1000, workers, func(lo, hi int) {
				if lo <= 900 && 900 < hi {
					panic("chunk")
				}
			})
		})
		if p != "chunk" {
			t.Fatalf("workers %d: Chunks recovered %v", workers, p)
		}
	}
}

// Each hands every index to exactly one worker, and calls newWorker once
// per worker goroutine at most.
func TestEachVisitsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 5} {
		for _, n := range []int{0, 1, 63, 64, 65, 1000} {
			counts := make([]int, n)
			var made atomic.Int32
			Each(n, workers, func() func(int) {
				made.Add(1)
				return func(i int) { counts[i]++ }
			})
			for i, c := range counts {
				if c != 1 {
					t.Fatalf("workers %d n %d: index %d ran %d times", workers, n, i, c)
				}
			}
			if m := int(made.Load()); m > max(1, workers) {
				t.Fatalf("workers %d n %d: newWorker called %d times", workers, n, m)
			}
		}
	}
}

// A panic in an Each worker (the index render, check and health loops of
// gitvault) reaches the calling goroutine once every worker has exited,
// instead of crashing the process from the worker goroutine; so does a
// panic in newWorker.
func TestEachRaisesPanicsOnCaller(t *testing.T) {
	catch := func(f func()) (p any) {
		defer func() { p = recover() }()
		f()
		return nil
	}
	for _, workers := range []int{1, 2, 4} {
		p := catch(func() {
			Each(1000, workers, func() func(int) {
				return func(i int) {
					if i == 700 {
						panic("each")
					}
				}
			})
		})
		if p != "each" {
			t.Fatalf("workers %d: recovered %v", workers, p)
		}
		p = catch(func() {
			Each(10, workers, func() func(int) { panic("new worker") })
		})
		if p != "new worker" {
			t.Fatalf("workers %d: newWorker panic recovered as %v", workers, p)
		}
	}
}
