package find

import (
	"os"
	"slices"
	"sync"
	"testing"
)

// The index is a cache (issue 19, "Bad input and faults"): deleting it
// while queries run loses nothing. One goroutine removes the whole index
// directory over and over while another queries: every query answers,
// with the hits of a query on an intact index.
func TestIndexDeletedMidQuery(t *testing.T) {
	for _, inGit := range []bool{false, true} {
		eng := newVault(t, inGit)
		r := roots(t, eng)
		writePage(t, eng, "deploys", pageText("runbook", "infra", "active", "How we deploy.", "# Deploys\n\nWe deployed the service on Fridays."))
		writeMemory(t, r, memSpec{ID: "mem_20260701_deploy", Title: "Deployment freeze", Kind: "decision", Body: "No deploying in December."})
		writeFiller(t, eng, r, 30, 10, 3)
		ageAll(t, eng.WS.Pages, r.ScopeRoot("project"))
		opt := Options{Query: "deploy service", Limit: 20}
		want := hitNames(mustFind(t, eng, opt))
		cache, err := cacheDir(eng.WS)
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					_ = os.RemoveAll(cache) // on Windows open files stay: a partial removal
				}
			}
		}()
		for i := 0; i < 40; i++ {
			res, err := Find(eng.WS, opt)
			if err != nil {
				close(stop)
				wg.Wait()
				t.Fatalf("in Git %v, round %d: %v", inGit, i, err)
			}
			if got := hitNames(res); !slices.Equal(got, want) {
				t.Errorf("in Git %v, round %d: hits %v, want %v", inGit, i, got, want)
			}
		}
		close(stop)
		wg.Wait()
		if got := hitNames(mustFind(t, eng, opt)); !slices.Equal(got, want) {
			t.Errorf("in Git %v, after: hits %v, want %v", inGit, got, want)
		}
	}
}
