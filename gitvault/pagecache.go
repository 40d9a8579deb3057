package gitvault

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// The page cache keeps, per page file, what an index render and inspect's
// health need from a page that parsed (type, status, summary, and the
// conflict verdict), keyed by the file's stamp (fsx.Stamp: type, size,
// mtime, ctime, device and inode). A page whose stamp is unchanged, and
// safely older than the moment it was last verified, is not read again, so
// hydrate, start, inspect and the post-merge hook cost a directory listing
// and one stat per page on an unchanged vault (issue 12, "One cache for
// every reader"; design, "Beyond the seeds": caches keyed by file identity).
//
// The cache never decides an outcome: it only stands in for a read and
// parse that would give the same answer. Pages that failed to read or parse
// are never cached (their errors are re-derived every time), nor are pages
// whose stamp cannot be taken. Racy entries are treated as Git treats them
// (Documentation/technical/racy-git.txt): an entry whose mtime or ctime is
// not older, by a whole cacheGranule, than the time it was verified (for an
// entry loaded from disk, the later of the cache file's own mtime and the
// Write time it records) is read again.
//
// On disk (Workspace.LocalCacheDir("pages") in a Git repository, one file per pages directory,
// so linked worktrees sharing a common Git directory do not share entries)
// the file is a versioned header naming the engine version and the pages
// directory, the entries, and a SHA-256 of all of it. A file that is
// corrupt, foreign (another directory) or outdated (another format or
// engine version) is ignored and, by the next writer, replaced. Files are
// written atomically (fsx.WriteFileAtomic: a complete temporary file renamed
// into place), so a concurrent reader sees the old or the new file whole and
// two writers leave one complete file. Only the mutating commands, under the
// vault lock, write it; inspect and status read it and never write it,
// because read-only commands write nothing (the cache is not part of the
// vault, but a status that writes would surprise a read-only checkout and
// race with the writers it is meant to observe).

// cacheGranule is the timestamp resolution the racy test allows for: FAT
// keeps modification times in two-second steps, and the kernel stamps files
// from a clock that lags the one time.Now reads.
var cacheGranule = int64(2 * time.Second) // a variable for tests only

// pageCacheMagic starts a cache file; pageCacheFormat is bumped whenever
// the encoding or what the parser derives from a page changes.
const (
	pageCacheMagic  = "git-echoes page cache\n"
	pageCacheFormat = 1
)

// cachedPage is one page's entry.
type cachedPage struct {
	stamp fsx.Stamp
	// since is when the stamp was known to describe the cached content
	// (Unix nanoseconds): the racy test's reference time.
	since                int64
	typ, status, summary string
	hasSummary           bool
	conflictKnown, confl bool // confl is meaningful only when conflictKnown
}

func (c cachedPage) racy() bool { return c.stamp.Racy(c.since, cacheGranule) }

// pageInto fills p, a page of slab, from the entry. slab is the caller's
// pool of pages, refilled 512 at a time: on 100,000 pages one allocation
// per page was 100,000 allocations for the collector to sweep.
func (c *cachedPage) pageInto(slab *[]ParsedPage) *ParsedPage {
	if len(*slab) == 0 {
		*slab = make([]ParsedPage, 512)
	}
	p := &(*slab)[0]
	*slab = (*slab)[1:]
	*p = ParsedPage{Type: c.typ, Status: c.status, Summary: c.summary, HasSummary: c.hasSummary}
	return p
}

// pageCache is the cache of one pages directory. It is safe for concurrent
// use; entries are replaced, never modified.
type pageCache struct {
	dir  string // the pages directory
	path string // the cache file ("" when there is none: no place for it)
	mu   sync.RWMutex
	// entries by page file name: pointers, into one slice for a loaded
	// file, so that the map of 100,000 entries holds 24-byte slots, not
	// 130-byte ones, and a lookup copies no entry (issue 19 item 4: the
	// map's pages and the copies were a tenth of hydrate on 100,000 pages).
	// An entry is replaced, never modified, so sharing it is safe.
	entries map[string]*cachedPage
	dirty   bool // entries differ from the file
	// sorted lists the names of entries in file order (sorted) while no
	// entry was added or dropped since the load, else nil: saving after
	// one changed page then need not sort 100,000 names again.
	sorted []string

	// The base/delta split (issue 19 item 4): base is the SHA-256 trailer
	// of the base file loaded (zero: none could be used, the next save
	// writes a whole base); delta names the entries the delta file loaded
	// on top of it holds, changed those stored, forgotten or dropped since
	// the load. A save after a few changes rewrites only the delta file,
	// not the 100,000 entries of the base.
	base    [sha256.Size]byte
	hasBase bool
	delta   map[string]bool
	changed map[string]bool

	reads atomic.Int64 // pages read (not taken from the cache): for tests
}

// deltaLimit is how many entries a delta file may hold before a save
// writes a whole new base instead: a delta is decoded on every load, so it
// stays small next to the base.
func deltaLimit(entries int) int { return max(256, entries/32) }

// pageCacheDeltaMagic starts a delta file.
const pageCacheDeltaMagic = "git-echoes page cache delta\n"

// deltaPath is the delta file of the base file path.
func deltaPath(path string) string { return strings.TrimSuffix(path, ".cache") + ".delta" }

// newPageCache returns an empty cache of dir stored at path.
func newPageCache(dir, path string) *pageCache {
	return &pageCache{dir: dir, path: path, entries: map[string]*cachedPage{}, delta: map[string]bool{}, changed: map[string]bool{}}
}

// pageCachePath is the cache file of ws's pages directory.
func (ws *Workspace) pageCachePath() (string, error) {
	dir, err := ws.LocalCacheDir("pages")
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(ws.Pages))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".cache"), nil
}

// loadPageCache reads the cache file of ws, or starts an empty cache when
// there is none or it cannot be trusted (then the next save replaces it).
func loadPageCache(ws *Workspace) *pageCache {
	// Outside Git there is no place for the file: the only local directory
	// would be .echoes-vault/, and the protocol lists what each command may
	// write there (protocol §12.5.1: hydrate rewrites only index.md and
	// state.json). The cache then lives for one process only.
	if !ws.InGit {
		return newPageCache(ws.Pages, "")
	}
	path, err := ws.pageCachePath()
	if err != nil {
		return newPageCache(ws.Pages, "")
	}
	c := newPageCache(ws.Pages, path)
	// Whatever cannot be used (no file yet, not a regular file, unreadable,
	// corrupt, foreign, outdated) starts empty and dirty: the next writer
	// replaces it.
	c.dirty = true
	st, err := fsx.LstatStamp(path)
	if err != nil || !st.IsRegular() {
		return c
	}
	// lstat before the read: if a writer replaces the file in between, the
	// content is newer than the mtime taken, which only makes more entries racy.
	data, err := fsx.ReadFile(path)
	if err != nil {
		return c
	}
	// The strings of the entries point into data, which nothing else
	// holds or changes: one allocation for the whole file.
	entries, sorted, written, ok := decodePageCacheString(unsafeString(data), ws.Pages)
	if !ok {
		return c
	}
	c.sorted = sorted
	since := max(written, st.Mtime)
	for _, e := range entries {
		e.since = since // each entry is this load's own, in one slice
	}
	c.entries, c.dirty = entries, false
	copy(c.base[:], data[len(data)-sha256.Size:])
	c.hasBase = true
	c.applyDelta(deltaPath(path))
	return c
}

// applyDelta lays the delta file at path over the loaded base. A delta
// that is missing, not a regular file, unreadable, corrupt, foreign or
// written over another base (a writer replaced the base since) is
// ignored: every entry is checked against its page's stamp anyway, so a
// lost delta costs reads, never a wrong answer.
func (c *pageCache) applyDelta(path string) {
	st, err := fsx.LstatStamp(path)
	if err != nil || !st.IsRegular() {
		return
	}
	data, err := fsx.ReadFile(path)
	if err != nil {
		return
	}
	upserts, removed, written, ok := decodePageCacheDelta(data, c.dir, c.base)
	if !ok {
		return
	}
	since := max(written, st.Mtime)
	for name, e := range upserts {
		if _, had := c.entries[name]; !had {
			c.sorted = nil
		}
		e.since = since
		c.entries[name] = &e
		c.delta[name] = true
	}
	for _, name := range removed {
		if _, had := c.entries[name]; had {
			delete(c.entries, name)
			c.sorted = nil
		}
		c.delta[name] = true
	}
}

// save writes the cache file when it differs from what was loaded. Errors
// are ignored: the cache is never needed for a correct answer.
func (c *pageCache) save() {
	if c.path == "" {
		return
	}
	// A writer killed while replacing the file leaves its temporary file:
	// the next writer removes it once stale, as for every other directory
	// the engine writes (issue 11 item 1).
	_, _ = fsx.RemoveStaleTemps(filepath.Dir(c.path), fsx.StaleTempAge, time.Now())
	c.mu.Lock()
	if !c.dirty {
		c.mu.Unlock()
		return
	}
	now := time.Now().UnixNano()
	if c.hasBase && len(c.delta)+len(c.changed) <= deltaLimit(len(c.entries)) {
		// A few changes: the delta file over the base loaded, which
		// stays as it is.
		for n := range c.changed {
			c.delta[n] = true
		}
		clear(c.changed)
		data := encodeDelta(c.lookup, c.delta, c.dir, c.base, now)
		c.dirty = false
		c.mu.Unlock()
		_ = fsx.WriteFileAtomic(deltaPath(c.path), data)
		return
	}
	data := encodePageCacheSorted(c.entries, c.sorted, c.dir, now)
	copy(c.base[:], data[len(data)-sha256.Size:])
	c.hasBase = true
	clear(c.delta)
	clear(c.changed)
	c.dirty = false
	c.mu.Unlock()
	if err := fsx.MkdirAllSync(filepath.Dir(c.path), 0o755); err != nil {
		return
	}
	if fsx.WriteFileAtomic(c.path, data) != nil {
		c.mu.Lock()
		c.hasBase = false // the base on disk is not the one described
		c.mu.Unlock()
		return
	}
	// The old delta names the old base: a reader that meets it next to
	// the new base ignores it, and it goes now.
	_ = fsx.RemoveFile(deltaPath(c.path))
}

// lookup is the entry of name, for the encoders; c.mu is held.
func (c *pageCache) lookup(name string) (cachedPage, bool) {
	if e := c.entries[name]; e != nil {
		return *e, true
	}
	return cachedPage{}, false
}

// usable returns the entry e (nil: there is none) when it may stand in for
// a read of a page stamped st: same stamp, not racy, and with a conflict
// verdict when one is needed.
func usable(e *cachedPage, st fsx.Stamp, needConflict bool) (*cachedPage, bool) {
	if e == nil || e.stamp != st || e.racy() || (needConflict && !e.conflictKnown) {
		return nil, false
	}
	return e, true
}

// snapshot returns the entries of names (nil: names[i] has none), under
// one read lock: on 100,000 pages a lock and a map probe per page
// from every worker cost more than the whole lookup done once, in order
// (the profile of issue 19 item 4: the read lock's counter bounced between
// cores). Only the worker of name i stores name i, so the snapshot is what
// a lookup at that moment would find.
func (c *pageCache) snapshot(names []string) []*cachedPage {
	entries := make([]*cachedPage, len(names))
	c.mu.RLock()
	defer c.mu.RUnlock()
	for i, n := range names {
		entries[i] = c.entries[n]
	}
	return entries
}

// store records a page just read and parsed.
func (c *pageCache) store(name string, e cachedPage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, had := c.entries[name]
	c.entries[name] = &e
	if !had {
		c.sorted = nil
	}
	// Rewriting the file helps when the entry is new or changed, or when
	// an entry that had to be re-read as racy is now safely old: written
	// again, it will be trusted next time.
	if !had || old.stamp != e.stamp || old.typ != e.typ || old.status != e.status || old.summary != e.summary ||
		old.hasSummary != e.hasSummary || old.conflictKnown != e.conflictKnown || old.confl != e.confl ||
		!e.stamp.Racy(time.Now().UnixNano(), cacheGranule) {
		c.dirty = true
		c.changed[name] = true
	}
}

// forget drops the entry of a page that no longer reads or parses.
func (c *pageCache) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[name]; ok {
		delete(c.entries, name)
		c.dirty, c.sorted = true, nil
		c.changed[name] = true
	}
}

// retain drops the entries of files not listed (removed pages). kept is
// how many listed names have an entry: when that is every entry, there is
// nothing to drop and the listing need not be indexed.
func (c *pageCache) retain(names []string, kept int) {
	c.mu.RLock()
	all := len(c.entries) == kept
	c.mu.RUnlock()
	if all {
		return
	}
	keep := make(map[string]bool, len(names))
	for _, n := range names {
		keep[n] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for n := range c.entries {
		if !keep[n] {
			delete(c.entries, n)
			c.dirty, c.sorted = true, nil
			c.changed[n] = true
		}
	}
}

// loadAndParseCached is loadAndParse over the work-tree pages of c.dir
// with the cache: a page whose stamp matches a trusted entry is taken from
// it, every other page is read and parsed exactly as loadAndParse does and
// its entry refreshed. The result is the one loadAndParse returns.
func loadAndParseCached(c *pageCache, names []string, skip map[string]int, withConflict bool) []LoadedPage {
	d, err := fsx.OpenDir(c.dir)
	if err != nil {
		return loadAndParse(DirSource{c.dir}, names, skip, withConflict)
	}
	defer d.Close()
	out := make([]LoadedPage, len(names))
	pre := c.snapshot(names)
	// kept counts listed names left with an entry, per worker: one shared
	// counter bounced between the cores on every page.
	var keptMu sync.Mutex
	var kepts []*paddedCount
	parallelWorkers(len(names), func() func(i int) {
		var buf []byte
		var slab []ParsedPage
		kept := new(paddedCount)
		keptMu.Lock()
		kepts = append(kepts, kept)
		keptMu.Unlock()
		return func(i int) {
			name := names[i]
			if _, ok := skip[name]; ok {
				if pre[i] != nil {
					kept.n++
				}
				return
			}
			checked := time.Now().UnixNano()
			st, serr := d.Stamp(name)
			cacheable := serr == nil && st.IsRegular()
			if cacheable {
				if e, ok := usable(pre[i], st, withConflict); ok {
					out[i].Page = e.pageInto(&slab)
					out[i].Conflict = withConflict && e.confl
					kept.n++
					return
				}
			}
			c.reads.Add(1)
			var err error
			buf, err = d.ReadFileBuf(name, buf)
			if err != nil {
				out[i].ReadErr = err
				c.forget(name)
				return
			}
			if !utf8.Valid(buf) {
				out[i].ReadErr = pytext.ErrInvalidUTF8
				c.forget(name)
				return
			}
			text := pytext.UniversalNewlines(unsafeString(buf))
			page, err := ParsePage(text, true, false)
			if err != nil {
				out[i].Conflict = withConflict && HasConflictMarker(text)
				out[i].ParseErr = err
				c.forget(name)
				return
			}
			// The conflict verdict is cached whoever asked, so that inspect
			// can trust what hydrate recorded.
			confl := HasConflictMarker(text)
			out[i].Conflict = withConflict && confl
			out[i].Page = page.detach()
			if cacheable {
				p := out[i].Page
				c.store(name, cachedPage{stamp: st, since: checked, typ: p.Type, status: p.Status, summary: p.Summary,
					hasSummary: p.HasSummary, conflictKnown: true, confl: confl})
				kept.n++
			} else {
				c.forget(name) // no stamp: the entry could not be checked next time either
			}
		}
	})
	total := 0
	for _, k := range kepts {
		total += k.n
	}
	c.retain(names, total)
	return out
}

// paddedCount is one worker's counter, alone on its cache line.
type paddedCount struct {
	n int
	_ [56]byte
}

// encodePageCache serializes entries (sorted by name, so equal caches are
// equal files).
func encodePageCache(entries map[string]cachedPage, dir string, written int64) []byte {
	ptrs := make(map[string]*cachedPage, len(entries))
	for n, e := range entries {
		ptrs[n] = &e
	}
	return encodePageCacheSorted(ptrs, nil, dir, written)
}

// encodePageCacheSorted is encodePageCache given the sorted names of
// entries, or nil to sort them here.
func encodePageCacheSorted(entries map[string]*cachedPage, names []string, dir string, written int64) []byte {
	size := len(pageCacheMagic) + len(EngineVersion) + len(dir) + 64 + sha256.Size
	for n, e := range entries {
		size += len(n) + len(e.typ) + len(e.status) + len(e.summary) + 48
	}
	if names == nil {
		names = make([]string, 0, len(entries))
		for n := range entries {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	b := make([]byte, 0, size) // one allocation: growing copied the file several times
	b = append(b, pageCacheMagic...)
	b = binary.AppendUvarint(b, pageCacheFormat)
	b = appendString(b, EngineVersion)
	b = appendString(b, dir)
	b = binary.AppendVarint(b, written)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		b = appendEntry(b, n, *entries[n])
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// appendEntry encodes one entry, as the base and the delta hold it.
func appendEntry(b []byte, n string, e cachedPage) []byte {
	b = appendString(b, n)
	b = binary.AppendUvarint(b, uint64(e.stamp.Mode))
	b = binary.AppendVarint(b, e.stamp.Size)
	b = binary.AppendVarint(b, e.stamp.Mtime)
	b = binary.AppendVarint(b, e.stamp.Ctime)
	b = binary.AppendUvarint(b, e.stamp.Dev)
	b = binary.AppendUvarint(b, e.stamp.Ino)
	var flags byte
	if e.hasSummary {
		flags |= 1
	}
	if e.conflictKnown {
		flags |= 2
	}
	if e.confl {
		flags |= 4
	}
	b = append(b, flags)
	b = appendString(b, e.typ)
	b = appendString(b, e.status)
	b = appendString(b, e.summary)
	return b
}

// encodePageCacheDelta serializes the delta over the base whose SHA-256
// trailer is base: for each name of names (sorted, so equal deltas are
// equal files), its entry, or its removal when entries has none.
func encodePageCacheDelta(entries map[string]cachedPage, names map[string]bool, dir string, base [sha256.Size]byte, written int64) []byte {
	return encodeDelta(func(n string) (cachedPage, bool) { e, ok := entries[n]; return e, ok }, names, dir, base, written)
}

// encodeDelta is encodePageCacheDelta with the entries given by lookup.
func encodeDelta(lookup func(string) (cachedPage, bool), names map[string]bool, dir string, base [sha256.Size]byte, written int64) []byte {
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	b := []byte(pageCacheDeltaMagic)
	b = binary.AppendUvarint(b, pageCacheFormat)
	b = appendString(b, EngineVersion)
	b = appendString(b, dir)
	b = append(b, base[:]...)
	b = binary.AppendVarint(b, written)
	b = binary.AppendUvarint(b, uint64(len(sorted)))
	for _, n := range sorted {
		e, ok := lookup(n)
		if !ok {
			b = append(b, 0) // removed
			b = appendString(b, n)
			continue
		}
		b = append(b, 1)
		b = appendEntry(b, n, e)
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// decodePageCacheDelta parses a delta file of dir over the base whose
// trailer is base. ok is false for anything but a complete, intact delta
// of this format, engine version, directory and base, naming each page at
// most once, with entries a base could hold.
func decodePageCacheDelta(data []byte, dir string, base [sha256.Size]byte) (upserts map[string]cachedPage, removed []string, written int64, ok bool) {
	if len(data) < len(pageCacheDeltaMagic)+sha256.Size || !bytes.HasPrefix(data, []byte(pageCacheDeltaMagic)) {
		return nil, nil, 0, false
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if want := sha256.Sum256(body); !bytes.Equal(want[:], sum) {
		return nil, nil, 0, false
	}
	// The strings of the entries are cut from one copy of the body.
	r := cacheReader{b: []byte(string(body[len(pageCacheDeltaMagic):]))}
	if r.uvarint() != pageCacheFormat || r.string() != EngineVersion || r.string() != dir {
		return nil, nil, 0, false
	}
	if len(r.b) < sha256.Size || !bytes.Equal(r.b[:sha256.Size], base[:]) {
		return nil, nil, 0, false
	}
	r.b = r.b[sha256.Size:]
	written = r.varint()
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		return nil, nil, 0, false
	}
	upserts = map[string]cachedPage{}
	seen := map[string]bool{}
	for range n {
		kind := r.byte()
		var name string
		switch kind {
		case 0:
			name = r.string()
			removed = append(removed, name)
		case 1:
			var e cachedPage
			name, e = r.entry()
			if r.bad {
				return nil, nil, 0, false
			}
			upserts[name] = e
		default:
			return nil, nil, 0, false
		}
		if r.bad || !validCachedName(name) || seen[name] {
			return nil, nil, 0, false
		}
		seen[name] = true
	}
	if len(r.b) != 0 {
		return nil, nil, 0, false
	}
	return upserts, removed, written, true
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// decodePageCache parses a cache file of dir. ok is false for anything
// but a complete, intact file of this format, engine version and
// directory, holding only regular-file entries of page names.
func decodePageCache(data []byte, dir string) (entries map[string]cachedPage, written int64, ok bool) {
	ptrs, _, written, ok := decodePageCacheString(string(data), dir)
	if !ok {
		return nil, 0, false
	}
	entries = make(map[string]cachedPage, len(ptrs))
	for n, e := range ptrs {
		entries[n] = *e
	}
	return entries, written, true
}

// decodePageCacheString is decodePageCache over the file as a string,
// whose bytes the strings of the entries share (no allocation per
// string); it also returns the names in file order when they are sorted
// (as encodePageCache writes them), else nil.
func decodePageCacheString(src string, dir string) (entries map[string]*cachedPage, sorted []string, written int64, ok bool) {
	data := unsafe.Slice(unsafe.StringData(src), len(src)) // read only
	if len(data) < len(pageCacheMagic)+sha256.Size || !bytes.HasPrefix(data, []byte(pageCacheMagic)) {
		return nil, nil, 0, false
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if want := sha256.Sum256(body); !bytes.Equal(want[:], sum) {
		return nil, nil, 0, false
	}
	r := cacheReader{b: body[len(pageCacheMagic):]}
	if r.uvarint() != pageCacheFormat || r.string() != EngineVersion || r.string() != dir {
		return nil, nil, 0, false
	}
	written = r.varint()
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) { // every entry takes more than a byte
		return nil, nil, 0, false
	}
	entries = make(map[string]*cachedPage, n)
	sorted = make([]string, 0, n)
	all := make([]cachedPage, n) // one allocation for every entry
	for i := range n {
		name, e := r.entry()
		if r.bad || !validCachedName(name) {
			return nil, nil, 0, false
		}
		if len(sorted) > 0 && sorted[len(sorted)-1] >= name {
			sorted = nil // not in order: the file is not encodePageCache's, and save sorts
		}
		if sorted != nil {
			sorted = append(sorted, name)
		}
		all[i] = e
		entries[name] = &all[i]
	}
	if uint64(len(entries)) != n { // a name given twice
		return nil, nil, 0, false
	}
	if len(r.b) != 0 {
		return nil, nil, 0, false
	}
	return entries, sorted, written, true
}

// entry reads one entry (appendEntry); anything an encoder could not
// have written sets bad.
func (r *cacheReader) entry() (string, cachedPage) {
	name := r.string()
	var e cachedPage
	mode := r.uvarint()
	e.stamp = fsx.Stamp{Mode: fs.FileMode(mode), Size: r.varint(), Mtime: r.varint(), Ctime: r.varint(), Dev: r.uvarint(), Ino: r.uvarint()}
	flags := r.byte()
	e.typ, e.status, e.summary = r.string(), r.string(), r.string()
	e.hasSummary, e.conflictKnown, e.confl = flags&1 != 0, flags&2 != 0, flags&4 != 0
	if mode > math.MaxUint32 || flags > 7 || !e.stamp.IsRegular() ||
		!utf8.ValidString(e.typ) || !utf8.ValidString(e.status) || !utf8.ValidString(e.summary) {
		r.bad = true
	}
	return name, e
}

// validCachedName reports whether name can be a listed page file name.
func validCachedName(name string) bool {
	return name != "" && utf8.ValidString(name) && !strings.ContainsAny(name, "/\x00") &&
		!strings.ContainsRune(name, filepath.Separator) && IsPageFileName(name)
}

// cacheReader reads the cache encoding; any malformed read sets bad.
type cacheReader struct {
	b   []byte
	bad bool
}

func (r *cacheReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *cacheReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *cacheReader) byte() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *cacheReader) string() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad, r.b = true, nil
		return ""
	}
	// r.b views a string (decodePageCacheString): the result shares it.
	s := unsafe.String(unsafe.SliceData(r.b), int(n))
	r.b = r.b[n:]
	return s
}
