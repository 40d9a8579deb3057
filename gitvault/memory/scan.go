package memory

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/jsjson"
	"github.com/git-echoes/git-echoes/internal/jstext"
	"github.com/git-echoes/git-echoes/internal/workpool"
)

// Diagnostic codes of invalid files (ecc-conformance §11.5).
const (
	DiagInvalidDocument  = "invalid-document"
	DiagLocationMismatch = "location-mismatch"
	DiagSuspectedSecret  = "suspected-secret"
)

var diagMessages = map[string]string{
	DiagInvalidDocument:  "Memory document is invalid or unreadable.",
	DiagLocationMismatch: "Memory metadata does not match its vault location.",
	DiagSuspectedSecret:  "Memory document was quarantined.",
}

// InvalidFile is one listed invalid-file diagnostic. It never carries raw
// error text or file content.
type InvalidFile struct {
	Path    string // "<scope>:<posix relative path>"
	Code    string
	Message string
}

// JSONValue is the invalid file's JSON object in the reference's key
// order (jsjson.Valuer).
func (f InvalidFile) JSONValue() any {
	return jsjson.Object{{Key: "path", Value: f.Path}, {Key: "code", Value: f.Code}, {Key: "message", Value: f.Message}}
}

// Entry is one valid memory found by a scan.
type Entry struct {
	Memory *Memory
	Path   string // "<scope>:<posix relative path>"

	// fold holds the lowercased fields search scores (nil: computed per
	// call). A scan with a Cache shares it between calls with the memory.
	fold *folded
}

// Diagnostics is the scan report shared by search and doctor.
type Diagnostics struct {
	InvalidFiles         []InvalidFile
	InvalidFileCount     int
	SkippedSymlinks      []string
	SkippedSymlinkCount  int
	ScannedBytes         int
	Truncated            bool
	DiagnosticsTruncated bool
}

// JSONValue is the diagnostics' JSON object in the reference's key order
// (jsjson.Valuer).
func (d *Diagnostics) JSONValue() any {
	inv := make([]any, len(d.InvalidFiles))
	for i, f := range d.InvalidFiles {
		inv[i] = f
	}
	return jsjson.Object{
		{Key: "invalidFiles", Value: inv}, {Key: "invalidFileCount", Value: d.InvalidFileCount},
		{Key: "skippedSymlinks", Value: nonNil(d.SkippedSymlinks)}, {Key: "skippedSymlinkCount", Value: d.SkippedSymlinkCount},
		{Key: "scannedBytes", Value: d.ScannedBytes}, {Key: "truncated", Value: d.Truncated},
		{Key: "diagnosticsTruncated", Value: d.DiagnosticsTruncated},
	}
}

type scanResult struct {
	Entries []Entry
	Diagnostics

	// index, on a scan the scan memo keeps, looks entries up by id
	// (scanmemo.go); nil otherwise.
	index *scanIndex
}

type scanner struct {
	res     scanResult
	visited int
	paths   *resolver
	cache   *Cache // nil: every file is read
}

// scan walks the scopes in order with the shared entry and byte budgets
// (ecc-conformance §11). Root-safety failures and directory I/O errors are
// returned as errors (the latter as CodeIncomplete); everything else about
// individual files becomes diagnostics.
func scan(r *Roots, scopes []string) (*scanResult, error) {
	return scanFor(r, scopes, false)
}

// scanShared is scan for callers that do not modify the result: a kept
// scan is returned itself, not copied (scanmemo.go).
func scanShared(r *Roots, scopes []string) (*scanResult, error) {
	return scanFor(r, scopes, true)
}

func scanFor(r *Roots, scopes []string, share bool) (*scanResult, error) {
	if r.snapshot != nil {
		return scanSnapshot(r.snapshot, scopes)
	}
	kept, token := r.cache.recallScan(r, scopes, share) // scanmemo.go (issue 19)
	if kept != nil {
		return kept, nil
	}
	s := &scanner{paths: newResolver(), cache: r.cache}
	s.res.Entries = []Entry{}
	s.res.InvalidFiles = []InvalidFile{}
	s.res.SkippedSymlinks = []string{}
	for _, scope := range scopes {
		if s.visited >= MaxScanEntries || s.res.ScannedBytes >= MaxScanBytes {
			s.res.Truncated = true
			break
		}
		if err := r.checkRootSafety(scope); err != nil {
			return nil, err
		}
		root := r.ScopeRoot(scope)
		if _, err := os.Lstat(root); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, incomplete(err)
		}
		var files []string
		if err := s.walk(root, "", 0, scope, &files); err != nil {
			return nil, err
		}
		s.readFiles(root, scope, files)
	}
	s.res.DiagnosticsTruncated = s.res.InvalidFileCount > len(s.res.InvalidFiles) ||
		s.res.SkippedSymlinkCount > len(s.res.SkippedSymlinks)
	r.cache.rememberScan(token, &s.res)
	return &s.res, nil
}

// errStopWalk ends the walk once the entry budget is used up.
var errStopWalk = errors.New("entry budget reached")

func (s *scanner) walk(root, rel string, depth int, scope string, files *[]string) error {
	err := s.walkDir(root, rel, depth, scope, files)
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}

func (s *scanner) walkDir(root, rel string, depth int, scope string, files *[]string) error {
	if depth > MaxScanDepth {
		s.res.Truncated = true
		return nil
	}
	dir := filepath.Join(root, filepath.FromSlash(rel))
	remaining := MaxScanEntries - s.visited
	entries, more, err := readDirBounded(dir, remaining)
	if err != nil {
		return incomplete(err)
	}
	if more {
		s.res.Truncated = true
	}
	sortEntries(entries)
	for _, e := range entries {
		if s.visited >= MaxScanEntries {
			s.res.Truncated = true
			return errStopWalk
		}
		s.visited++
		name := e.Name()
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		typ := e.Type()
		switch {
		case fsx.IsLinkEntry(dir, e):
			s.res.SkippedSymlinkCount++
			if len(s.res.SkippedSymlinks) < MaxDiagnostics {
				s.res.SkippedSymlinks = append(s.res.SkippedSymlinks, scope+":"+childRel)
			}
		case typ.IsDir():
			if strings.HasPrefix(name, ".") {
				continue
			}
			if err := s.walkDir(root, childRel, depth+1, scope, files); err != nil {
				return err
			}
		case typ.IsRegular():
			if strings.HasSuffix(name, ".md") && !strings.HasPrefix(name, ".") {
				*files = append(*files, childRel)
			}
		}
	}
	return nil
}

// sortEntries sorts directory entries by name with localeCompare, stably.
// When every name consists of slug characters, localeCompare takes its
// exact slug fast path for every pair (rank order, then length), which is
// strings.Compare on the names mapped to their ranks; those keys are
// computed once instead of per comparison. Otherwise names are collated.
func sortEntries(entries []fs.DirEntry) {
	type keyed struct {
		key string
		e   fs.DirEntry
	}
	items := make([]keyed, len(entries))
	for i, e := range entries {
		name := e.Name()
		key := make([]byte, len(name))
		for j := 0; j < len(name); j++ {
			if key[j] = jstext.SlugRank(name[j]); key[j] == 0 {
				sort.SliceStable(entries, func(i, j int) bool { return localeCompare(entries[i].Name(), entries[j].Name()) < 0 })
				return
			}
		}
		items[i] = keyed{string(key), e}
	}
	slices.SortStableFunc(items, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	for i := range items {
		entries[i] = items[i].e
	}
}

// readDirBounded reads up to limit entries and probes for one more, so a
// huge directory never costs more than the remaining budget.
func readDirBounded(dir string, limit int) ([]fs.DirEntry, bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false, err
	}
	var out []fs.DirEntry
	for len(out) < limit+1 {
		batch, err := f.ReadDir(limit + 1 - len(out))
		out = append(out, batch...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			f.Close()
			return nil, false, err
		}
		if len(batch) == 0 {
			break
		}
	}
	if err := f.Close(); err != nil {
		return nil, false, err
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

func (s *scanner) invalid(scope, rel, code string) {
	s.res.InvalidFileCount++
	if len(s.res.InvalidFiles) < MaxDiagnostics {
		s.res.InvalidFiles = append(s.res.InvalidFiles, InvalidFile{Path: scope + ":" + rel, Code: code, Message: diagMessages[code]})
	}
}

// scanWorkers is how many goroutines read and parse files (0: GOMAXPROCS).
// Tests set it to compare the parallel scan with the sequential one.
var scanWorkers = 0

// scanWindow bounds how far the readers may run ahead of the in-order
// merge, per worker, so a scan stopped by the byte budget reads at most a
// few extra files.
const scanWindow = 16

// fileOutcome is everything the scan needs from one collected file. It is
// computed independently per file (possibly in parallel and ahead of the
// budget checks) and applied strictly in walk order.
type fileOutcome struct {
	readOK bool    // the guarded read succeeded
	size   int     // the decoded text's UTF-8 length, when readOK
	code   string  // a diagnostic code after a successful read, or ""
	memory *Memory // the valid memory when readOK and code == ""
	fold   *folded // memory's lowercased fields, filled by the first search
}

// examine reads, parses and checks one file (ecc-conformance §11.4 steps 2 and
// 5 to 7). It has no effect on the scan state. With a cache, a file whose
// stamp matches a trusted entry of prev is not read (its containment is
// still checked), and the outcome of a successful read is recorded in rec.
func (s *scanner) examine(root, rootReal string, rootOK bool, scope, rel string, sd *scanDir,
	prev map[string]cachedFile, rec *cachedFile) fileOutcome {
	path := filepath.Join(root, filepath.FromSlash(rel))
	dir, base := filepath.Dir(path), filepath.Base(path)
	inside := func() bool { return rootOK && s.paths.fileWithin(dir, base, rootReal) }
	d, dirOK := sd.acquire()
	defer sd.release()
	var stamp fsx.Stamp
	var since int64
	stamped := false
	if s.cache != nil {
		since = time.Now().UnixNano()
		var err error
		if dirOK {
			stamp, err = d.Stamp(base)
		} else {
			stamp, err = fsx.LstatStamp(path)
		}
		stamped = err == nil && stamp.IsRegular()
		if f, ok := prev[rel]; ok && stamped && f.stamp == stamp && !stamp.Racy(f.since, cacheGranule) && inside() {
			*rec = f
			return f.o
		}
	}
	if s.cache != nil {
		s.cache.reads.Add(1)
	}
	var text string
	var err error
	if dirOK {
		text, err = readGuardedAt(d, base, path, "memory document", MaxDocumentBytes, root, inside)
	} else {
		text, err = readGuardedCheck(path, "memory document", MaxDocumentBytes, root, inside)
	}
	if err != nil {
		return fileOutcome{}
	}
	o := examineText(text, scope, rel)
	if stamped {
		*rec = cachedFile{stamp: stamp, since: since, o: o}
	}
	return o
}

// examineText is examine's verdict on a document's text.
func examineText(text, scope, rel string) fileOutcome {
	o := fileOutcome{readOK: true, size: len(text)}
	m, code := judge(text, scope, rel)
	if code != "" {
		o.code = code
		return o
	}
	o.memory = m
	o.fold = &folded{}
	return o
}

// judge is the readers' verdict on the text of the document at rel in
// scope (ecc-conformance §11.4): the memory, or the diagnostic that makes
// them skip it (DiagInvalidDocument, DiagLocationMismatch,
// DiagSuspectedSecret; m is set for the last two). The scan and the gate
// (CheckFiles) both call it, so the gate reports exactly what reads skip.
func judge(text, scope, rel string) (m *Memory, code string) {
	m, err := ParseDocument(text)
	if err != nil {
		return nil, DiagInvalidDocument
	}
	first, _, nested := strings.Cut(rel, "/")
	if m.Scope != scope || !nested || first != m.Kind+"s" {
		return m, DiagLocationMismatch
	}
	if hasSecretOnRead(m) {
		return m, DiagSuspectedSecret
	}
	return m, ""
}

// readFiles applies ecc-conformance §11.4 to the collected files in walk order. The
// per-file work runs on several goroutines; the byte budget, the
// diagnostics and the entries are applied by one in-order merge, so the
// result is exactly the sequential one.
func (s *scanner) readFiles(root, scope string, files []string) {
	rootReal, err := s.paths.realpathNearest(root)
	rootOK := err == nil
	workers := scanWorkers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	dirs, dirOf := groupByDir(root, files)
	defer func() {
		for _, d := range dirs {
			d.close()
		}
	}()
	prev := s.cache.files(scope, root)
	var recs []cachedFile
	if s.cache != nil {
		recs = make([]cachedFile, len(files))
		defer func() {
			next := make(map[string]cachedFile, len(files))
			for i, f := range recs {
				if f.o.readOK {
					next[files[i]] = f
				}
			}
			s.cache.publish(scope, root, next)
		}()
	}
	workpool.Ordered(len(files), workers, scanWindow*workers,
		func(i int) fileOutcome {
			var rec cachedFile
			if recs != nil {
				defer func() { recs[i] = rec }()
			}
			return s.examine(root, rootReal, rootOK, scope, files[i], dirs[dirOf[i]], prev, &rec)
		},
		func(i int, o fileOutcome) bool {
			rel := files[i]
			if s.res.ScannedBytes >= MaxScanBytes {
				s.res.Truncated = true
				return false
			}
			if !o.readOK {
				s.invalid(scope, rel, DiagInvalidDocument)
				return true
			}
			if s.res.ScannedBytes+o.size > MaxScanBytes {
				s.res.Truncated = true
				return false
			}
			s.res.ScannedBytes += o.size
			if o.code != "" {
				s.invalid(scope, rel, o.code)
				return true
			}
			s.res.Entries = append(s.res.Entries, Entry{Memory: o.memory, Path: scope + ":" + rel, fold: o.fold})
			return true
		})
}

// scanDir is a directory holding collected files. It is opened (fsx.Dir,
// a descriptor on the fast path) by the first file read from it and closed
// after the last, so only the directories with reads in flight hold one.
type scanDir struct {
	path  string
	left  atomic.Int32 // files not yet released
	mu    sync.Mutex
	dir   *fsx.Dir
	state int8 // dirUnopened, dirOpen or dirDone (closed or failed)
}

const (
	dirUnopened int8 = iota
	dirOpen
	dirDone
)

// groupByDir returns the directories of files (root-relative posix paths)
// and each file's directory index.
func groupByDir(root string, files []string) ([]*scanDir, []int) {
	var dirs []*scanDir
	dirOf := make([]int, len(files))
	index := map[string]int{}
	for i, rel := range files {
		dir := "."
		if j := strings.LastIndexByte(rel, '/'); j >= 0 {
			dir = rel[:j]
		}
		k, ok := index[dir]
		if !ok {
			k = len(dirs)
			index[dir] = k
			dirs = append(dirs, &scanDir{path: filepath.Join(root, filepath.FromSlash(dir))})
		}
		dirs[k].left.Add(1)
		dirOf[i] = k
	}
	return dirs, dirOf
}

// acquire returns the open directory, opening it on first use. It reports
// false when the directory cannot be opened; the caller then uses the
// path-based reader, so the outcome is the same either way.
func (d *scanDir) acquire() (*fsx.Dir, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state == dirUnopened {
		d.state = dirDone
		if dir, err := fsx.OpenDir(d.path); err == nil {
			d.dir, d.state = dir, dirOpen
		}
	}
	return d.dir, d.state == dirOpen
}

// release marks one file done; the last one closes the descriptor.
func (d *scanDir) release() {
	if d.left.Add(-1) == 0 {
		d.close()
	}
}

func (d *scanDir) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state == dirOpen {
		_ = d.dir.Close()
	}
	d.dir, d.state = nil, dirDone
}

// parallelChunks calls f over [0, n) split into contiguous chunks, one per
// scan worker (workpool.Chunks: small inputs inline, a panic in f
// re-raised on the calling goroutine).
func parallelChunks(n int, f func(lo, hi int)) {
	workers := scanWorkers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workpool.Chunks(n, workers, f)
}
