package memory

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/git-echoes/git-echoes/internal/fsx"
)

// Cache keeps, for a long-lived process (the MCP server), the outcome of
// each memory file a scan read (the parsed, checked memory, or the
// diagnostic it earned), keyed by the file's stamp (fsx.Stamp: type, size,
// mtime, ctime, device and inode) — issue 10, "Fast while it lives". Every
// scan still walks the directories and takes every file's stamp, so
// additions, removals, replacements and edits are seen on the next call; a
// file whose stamp matches, and is safely older than the moment it was
// recorded (Git's racy rule, fsx.Stamp.Racy), is not opened again. The
// containment check of the guarded reader (ecc-conformance §11.3) is repeated
// for every file, cached or not, and files whose read failed are never
// cached, so every scan result is the one a scan without the cache returns.
//
// A Cache is safe for concurrent use; the memories it returns are shared
// and must not be modified (no caller does). Its size is bounded: it holds
// the files of the most recent scan of each scope root, at most
// cacheMaxRoots roots and cacheMaxBytes of document text in all (the scan
// budget, MaxScanBytes, bounds one scan's share).
type Cache struct {
	mu    sync.Mutex
	roots map[cacheRoot]*rootFiles
	clock uint64 // orders roots by last use
	bytes int

	reads atomic.Int64 // files opened by cached scans: for tests

	memo scanMemo // whole scans reused while proven unchanged (scanmemo.go, issue 19)
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{roots: map[cacheRoot]*rootFiles{}} }

const (
	cacheMaxRoots = 8
	cacheMaxBytes = 4 * MaxScanBytes
)

// cacheGranule is the racy rule's timestamp resolution: FAT keeps two-second
// modification times, and the kernel stamps files from a clock that lags the
// one time.Now reads. A variable for tests only.
var cacheGranule = int64(2 * time.Second)

type cacheRoot struct{ scope, root string }

// rootFiles is the last scan of one scope root, by root-relative path. It
// is never modified once published.
type rootFiles struct {
	files map[string]cachedFile
	bytes int
	used  uint64
}

type cachedFile struct {
	stamp fsx.Stamp
	since int64 // when the stamp was taken, before the read (Unix ns)
	o     fileOutcome
}

// files returns the published files of a scope root (nil when none).
func (c *Cache) files(scope, root string) map[string]cachedFile {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	rf := c.roots[cacheRoot{scope, root}]
	if rf == nil {
		return nil
	}
	c.clock++
	rf.used = c.clock
	return rf.files
}

// publish replaces a scope root's files with those of a scan, then evicts
// the least recently used other roots while over the bounds.
func (c *Cache) publish(scope, root string, files map[string]cachedFile) {
	size := 0
	for _, f := range files {
		size += f.o.size
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := cacheRoot{scope, root}
	if old := c.roots[key]; old != nil {
		c.bytes -= old.bytes
		delete(c.roots, key)
	}
	if size > cacheMaxBytes {
		return
	}
	c.clock++
	for len(c.roots) >= cacheMaxRoots || c.bytes+size > cacheMaxBytes {
		var oldest cacheRoot
		var at uint64
		first := true
		for k, rf := range c.roots {
			if first || rf.used < at {
				oldest, at, first = k, rf.used, false
			}
		}
		c.bytes -= c.roots[oldest].bytes
		delete(c.roots, oldest)
	}
	c.roots[key] = &rootFiles{files: files, bytes: size, used: c.clock}
	c.bytes += size
}
