package memory

import (
	"slices"
	"strings"
	"sync"
)

// The scan memo (issue 19): a long-lived process whose change notification
// can prove that nothing under the memory roots changed since a scan
// (internal/fswatch, through Freshness) reuses that scan whole instead of
// walking the directories and stamping every file again. What it reuses
// is the outcome a new scan would have, because "nothing changed" is
// proven by a barrier taken before the reused scan started and again now;
// when freshness cannot be proven the scan runs as without the memo (and
// the stamp cache still saves the reads).

// Freshness reports the change-notification generation of the trees dirs
// (the memory roots a scan reads, which it watches from then on) and
// whether it is proven (see fswatch.Watcher.Sync: every change completed
// before the call has moved the generation).
type Freshness func(dirs []string) (gen uint64, ok bool)

// Proof is what a Freshness call answered for Dirs, taken by the caller at
// the start of the current call (RootOptions.Proof). Reusing it for the
// scan memo answers with the files as they stood when the call began, which
// is what a call must see; a scan that runs after it is kept under Gen, as
// one after a barrier of its own would be (changes made meanwhile move the
// generation for the next call).
type Proof struct {
	Dirs []string
	Gen  uint64
}

// SetFreshness gives the cache a Freshness: scans through it may then be
// reused while the generation stays the same. nil turns the memo off.
func (c *Cache) SetFreshness(f Freshness) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.memo.fresh = f
	c.memo.scans = nil
}

// scanMemoMax bounds the kept scans (one per roots and scopes asked for).
const scanMemoMax = 8

type scanMemo struct {
	fresh Freshness
	scans []keptScan
}

type keptScan struct {
	key string
	gen uint64
	res *scanResult
}

// scanToken is what recallScan learned before a scan, for rememberScan.
type scanToken struct {
	key string
	gen uint64
	ok  bool
}

func scanKey(r *Roots, scopes []string) string {
	return strings.Join(append([]string{r.ProjectVault, r.UserVault, r.projectBoundary, r.userBoundary}, scopes...), "\x00")
}

// recallScan returns a kept scan of the same roots and scopes under the
// current proven generation, or the token to keep the coming one. With
// share the kept scan itself is returned, not a copy: for callers that
// only read it (Read), which a copy of every entry per call would cost more
// than the lookup itself.
func (c *Cache) recallScan(r *Roots, scopes []string, share bool) (*scanResult, scanToken) {
	if c == nil {
		return nil, scanToken{}
	}
	c.mu.Lock()
	fresh := c.memo.fresh
	c.mu.Unlock()
	if fresh == nil {
		return nil, scanToken{}
	}
	dirs := []string{r.ProjectVault, r.UserVault}
	var gen uint64
	var ok bool
	if p := r.proof; p != nil && slices.Equal(p.Dirs, dirs) {
		gen, ok = p.Gen, true
	} else {
		gen, ok = fresh(dirs)
	}
	if !ok {
		return nil, scanToken{}
	}
	key := scanKey(r, scopes)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.memo.scans {
		if k.key == key && k.gen == gen {
			if share {
				return k.res, scanToken{}
			}
			return k.res.clone(), scanToken{}
		}
	}
	return nil, scanToken{key: key, gen: gen, ok: true}
}

// rememberScan keeps a successful scan made after recallScan gave t.
func (c *Cache) rememberScan(t scanToken, res *scanResult) {
	if c == nil || !t.ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := c.memo.scans[:0]
	for _, k := range c.memo.scans {
		// The same roots' older generation is never reused; other roots'
		// generations count other trees and are kept (bounded below).
		if k.key != t.key {
			kept = append(kept, k)
		}
	}
	if len(kept) >= scanMemoMax {
		kept = kept[1:]
	}
	k := res.clone()
	// The id index describes the kept copy's entries, which nobody
	// reorders (recallScan hands out copies, or the kept scan itself to
	// readers only); res and every copy share it.
	res.index = &scanIndex{entries: k.Entries}
	k.index = res.index
	c.memo.scans = append(kept, keptScan{key: t.key, gen: t.gen, res: k})
}

// scanIndex is a kept scan's lookup by id for Read (issue 19): the entries
// of each id and the entries linking to each id, both in scan order, so
// that a read of one memory among thousands does not compare every id and
// every link list again. It is built once, on the first read of the kept
// scan, and goes with it: a change under the roots makes a new scan and so
// a new index.
type scanIndex struct {
	entries []Entry // the kept scan's, never modified

	once     sync.Once
	byID     map[string][]int32 // ids → indices in entries
	linkedBy map[string][]int32 // link targets → indices of the entries listing them (once each)
}

func (x *scanIndex) build() {
	x.once.Do(func() {
		x.byID = make(map[string][]int32, len(x.entries))
		x.linkedBy = map[string][]int32{}
		for i, e := range x.entries {
			x.byID[e.Memory.ID] = append(x.byID[e.Memory.ID], int32(i))
			for j, l := range e.Memory.Links {
				// Read lists an entry once however many times it links
				// the id (validation refuses repeated links; the index
				// does not depend on it).
				if !slices.Contains(e.Memory.Links[:j], l) {
					x.linkedBy[l] = append(x.linkedBy[l], int32(i))
				}
			}
		}
	})
}

// clone copies what callers may reorder; the memories themselves are
// shared and never modified (see Cache).
func (s *scanResult) clone() *scanResult {
	cp := *s
	cp.Entries = slices.Clone(s.Entries)
	cp.InvalidFiles = slices.Clone(s.InvalidFiles)
	cp.SkippedSymlinks = slices.Clone(s.SkippedSymlinks)
	return &cp
}
