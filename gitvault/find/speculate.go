package find

import (
	"context"
	"errors"
	"strings"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
)

// statPass is what speculate's revalidation read, for the sequential
// sync to start from when it refused its answer.
type statPass struct {
	pages    []fileState
	pagesOK  bool // pages is pageFiles' answer (it failed otherwise)
	memory   string
	memoryOK bool   // memory is memoryFingerprint's answer
	current  *store // the current generation, open, for open to sync
}

// speculate answers a warm query while proving it may: the query runs in
// one snapshot of the current generation at the same time as the stat
// passes that revalidate the sources (issue 19: "find warm query, whole
// process", where the two ran one after the other and each took about
// half of the time). The answer is kept only when every source passes
// syncAll's fast path against the fingerprints that same snapshot holds:
// the listing and every identity hash to what the index was synced at,
// and nothing was racy then or is now. Then the sequential path would
// have written nothing and run the same query on the same rows.
//
// In every other case (no index, a changed or racy file, a damaged index,
// any error) the answer is dropped (res is nil) and the ranking, if still
// running, interrupted: Find takes the sequential path, which reports
// errors as it always did, starting its sync from the stat passes taken
// here (pre). They are a few milliseconds old, far inside the racy
// window that covers a change made meanwhile, as the sequential path's
// own pass is older than the time it records.
func speculate(ws *gitvault.Workspace, q *Query, opt Options, src sourceSet) (res *Result, pre *statPass) {
	cache, err := cacheDir(ws)
	if err != nil {
		return nil, nil
	}
	roots, err := memory.ResolveRoots(memory.RootOptions{Cwd: ws.Root})
	if err != nil {
		return nil, nil
	}
	s, err := openCurrent(indexDir(cache, ws.Root), ws.Root)
	if err != nil {
		return nil, nil
	}
	keep := false // s handed on in pre
	defer func() {
		if !keep {
			s.close()
		}
	}()
	tx, err := s.db.Begin()
	if err != nil {
		return nil, nil
	}
	defer tx.Rollback()
	// The fingerprints of the snapshot the query reads.
	have := map[string]string{}
	for _, k := range []string{"files:" + SourcePage, "files:" + SourceDaily, "memory"} {
		var v string
		if err := tx.QueryRow(`SELECT v FROM meta WHERE k = ?`, k).Scan(&v); err == nil {
			have[k] = v
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res = &Result{Query: q.Raw}
	done := make(chan error, 1)
	go func() { done <- queryTx(ctx, tx, q, opt, src, res) }()
	pre = &statPass{}
	valid := true
	if src.pages {
		pre.pages, err = pageFiles(ws)
		pre.pagesOK = err == nil
		valid = pre.pagesOK && filesUnchanged(have["files:"+SourcePage], filesFingerprint(pre.pages), pre.pages)
	}
	if valid && src.daily {
		files := dailyFiles(ws)
		valid = filesUnchanged(have["files:"+SourceDaily], filesFingerprint(files), files)
	}
	if valid && src.memory {
		pre.memory, pre.memoryOK = memoryFingerprint(roots, src.scopes), true
		valid = pre.memory != "" && pre.memory == have["memory"]
	}
	if !valid {
		cancel()
	}
	qerr := <-done
	if qerr == nil && valid {
		return res, nil
	}
	if !valid {
		// The generation was trusted (openCurrent) and answered: the sync
		// starts from it. A query that failed on its own may have met
		// damage: the sequential path opens it again and judges.
		pre.current, keep = s, qerr == nil || errors.Is(qerr, context.Canceled)
	}
	if !keep {
		pre.current = nil
	}
	return nil, pre
}

// filesUnchanged is syncFiles' fast path: have (the recorded fingerprint
// and when it was taken) names fp, the listing's, and no file is racy.
func filesUnchanged(have, fp string, files []fileState) bool {
	h, at, ok := strings.Cut(have, " ")
	return ok && h == fp && !anyRacy(files, parseInt(at))
}
