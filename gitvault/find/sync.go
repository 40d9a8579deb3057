package find

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/analysis"
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pytext"
	"github.com/git-echoes/git-echoes/internal/workpool"
)

// Sources of documents.
const (
	SourcePage   = "page"
	SourceDaily  = "daily"
	SourceMemory = "memory"
)

// racyNs is how close to its indexing time a file's modification time may
// be before its identity is no longer trusted: such a file may have been
// changed again within the same timestamp granule (Git's "racy" entries),
// so it is re-read and compared by content until it is safely older.
var racyNs = int64(2 * time.Second)

// doc is one indexed document.
type doc struct {
	key, source, path string
	fid               fsx.Stamp
	hash, invalid     string
	title, summary    string
	typ               string
	stack             []string // gitvault.StackOf
	status            string
	kind, scope, id   string
	tags              []string
	date              string
	links             []string
	body              string // the text lines are numbered in
	bodyLine          int    // line number of body's first line
	ftsBody           string // the text the body column indexes
	ftsTitle          string // the text the title column indexes, when not title
	analyzed          *ftsRow
}

// fileState is one file found on disk.
type fileState struct {
	key, abs, display, rel string
	fid                    fsx.Stamp
}

type row struct {
	id      int64
	fid     fsx.Stamp
	indexed int64
	hash    string
}

// sourceSet names what one sync covers.
type sourceSet struct {
	pages, daily, memory bool
	scopes               []string
}

// syncStats counts what a sync did.
type syncStats struct{ updated, removed int }

// syncAll brings the index up to date with the sources.
func (s *store) syncAll(ws *gitvault.Workspace, src sourceSet, roots *memory.Roots, pre *statPass) (syncStats, error) {
	var total syncStats
	add := func(st syncStats, err error) error {
		total.updated += st.updated
		total.removed += st.removed
		return err
	}
	if src.pages {
		var files []fileState
		var err error
		if pre != nil && pre.pagesOK {
			files = pre.pages
		} else if files, err = pageFiles(ws); err != nil {
			return total, err
		}
		if err := add(s.syncFiles(SourcePage, files, func(f fileState, text string) doc { return pageDoc(f, text) })); err != nil {
			return total, err
		}
	}
	if src.daily {
		if err := add(s.syncFiles(SourceDaily, dailyFiles(ws), func(f fileState, text string) doc { return dailyDoc(f, text) })); err != nil {
			return total, err
		}
	}
	if src.memory {
		fp := ""
		if pre != nil && pre.memoryOK {
			fp = pre.memory
		} else {
			fp = memoryFingerprint(roots, src.scopes)
		}
		if err := add(s.syncMemory(roots, src.scopes, fp)); err != nil {
			return total, err
		}
	}
	return total, nil
}

func pageFiles(ws *gitvault.Workspace) ([]fileState, error) {
	names, err := ws.PageNames()
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	rel := ws.Rel(ws.Pages)
	all := make([]fileState, len(names))
	ok := make([]bool, len(names))
	// The stat pass is the whole cost of a warm query's revalidation: it
	// runs on every core, in chunks, and keeps the listing order.
	pages := filepath.Clean(ws.Pages)
	stat := func(name, abs string) (fsx.Stamp, error) { return fsx.LstatStamp(abs) }
	if d, err := fsx.OpenDir(pages); err == nil {
		defer d.Close()
		stat = func(name, abs string) (fsx.Stamp, error) { return d.Stamp(name) }
	}
	workpool.Chunks(len(names), runtime.GOMAXPROCS(0), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			n := names[i]
			abs := joinName(pages, n)
			fid, err := stat(n, abs)
			if err != nil {
				continue // gone since the listing
			}
			all[i], ok[i] = fileState{key: "page:" + n, abs: abs, display: joinName(rel, n), rel: n, fid: fid}, true
		}
	})
	files := all[:0]
	for i := range all {
		if ok[i] {
			files = append(files, all[i])
		}
	}
	return files, nil
}

// joinName is filepath.Join(dir, name) for a clean dir and a name a
// directory listing gave (one element), without the Clean that Join runs
// on its result: on a warm query's stat pass of thousands of pages that
// Clean was a twentieth of the process (issue 19). Anything else, a name
// with a separator, "." or "..", a bare volume name or a volume's current
// directory ("C:", "C:.": Join gives "C:name"), goes through Join.
func joinName(dir, name string) string {
	vol := filepath.VolumeName(dir)
	rest := dir[len(vol):]
	if name == "" || name == "." || name == ".." || rest == "" || vol != "" && rest == "." {
		return filepath.Join(dir, name)
	}
	for i := 0; i < len(name); i++ {
		if os.IsPathSeparator(name[i]) {
			return filepath.Join(dir, name)
		}
	}
	if dir == "." {
		return name
	}
	if os.IsPathSeparator(dir[len(dir)-1]) { // a root: "/", `C:\`
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

func dailyFiles(ws *gitvault.Workspace) []fileState {
	rel := ws.Rel(ws.Daily)
	var files []fileState
	ws.WalkDaily(func(r string) bool {
		abs := filepath.Join(ws.Daily, filepath.FromSlash(r))
		if fid, err := fsx.LstatStamp(abs); err == nil {
			files = append(files, fileState{key: "daily:" + r, abs: abs, display: filepath.Join(rel, filepath.FromSlash(r)), rel: r, fid: fid})
		}
		return true
	})
	return files
}

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	Query(query string, args ...any) (*sql.Rows, error)
}

func (s *store) loadRows(q querier, source string) (map[string]row, error) {
	rows, err := q.Query(`SELECT key, id, fmode, fsize, mtime, ctime, dev, ino, indexed, hash FROM docs WHERE source = ?`, source)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]row{}
	for rows.Next() {
		var k string
		var r row
		var mode int64
		if err := rows.Scan(&k, &r.id, &mode, &r.fid.Size, &r.fid.Mtime, &r.fid.Ctime, &r.fid.Dev, &r.fid.Ino, &r.indexed, &r.hash); err != nil {
			return nil, err
		}
		r.fid.Mode = fs.FileMode(mode)
		out[k] = r
	}
	return out, rows.Err()
}

// stale reports whether a file must be read again: new, changed identity,
// or racy.
func stale(r row, ok bool, f fileState) bool {
	return !ok || r.fid != f.fid || f.fid.Racy(r.indexed, racyNs)
}

// syncFiles re-indexes the files of one source whose identity changed
// and drops the rows of files that are gone. The comparison runs first
// without a transaction; only when something changed does it take
// SQLite's write lock, compare again (another process may have done the
// work meanwhile) and apply the changes in one transaction.
func (s *store) syncFiles(source string, files []fileState, build func(fileState, string) doc) (syncStats, error) {
	// Fast path: the listing with every identity hashes to what the last
	// sync recorded, and no file was racy then or is now.
	fp := filesFingerprint(files)
	var have string
	_ = s.db.QueryRow(`SELECT v FROM meta WHERE k = ?`, "files:"+source).Scan(&have)
	if filesUnchanged(have, fp, files) {
		return syncStats{}, nil
	}
	rows, err := s.loadRows(s.db, source)
	if err != nil {
		return syncStats{}, err
	}
	if !needsWork(rows, files) {
		return syncStats{}, s.recordFiles(s.db, source, fp)
	}
	tx, err := s.db.Begin()
	if err != nil {
		return syncStats{}, err
	}
	defer tx.Rollback()
	if rows, err = s.loadRows(tx, source); err != nil {
		return syncStats{}, err
	}
	var todo []fileState
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.key] = true
		r, ok := rows[f.key]
		if stale(r, ok, f) {
			todo = append(todo, f)
		}
	}
	w := newTxWriter(tx)
	defer w.close()
	var st syncStats
	for k, r := range rows {
		if !seen[k] {
			if err := w.deleteDoc(r.id); err != nil {
				return st, err
			}
			st.removed++
		}
	}
	// Read, parse and analyze on every core while this goroutine writes,
	// in order (issue 19: the analysis and SQLite's own work overlap).
	type work struct {
		d     *doc
		ident bool // unchanged content: only the identity moves
	}
	now := time.Now().UnixNano()
	var werr error
	workpool.Ordered(len(todo), runtime.GOMAXPROCS(0), 256, func(i int) work {
		f := todo[i]
		b, err := fsx.ReadFile(f.abs)
		if err != nil {
			return work{} // gone or unreadable: the next sync sees it
		}
		h := hashBytes(b)
		if r, ok := rows[f.key]; ok && r.hash == h {
			return work{d: &doc{key: f.key, fid: f.fid, hash: h}, ident: true}
		}
		d := build(f, string(b))
		d.hash = h
		d.analyzed = analyzeDoc(&d)
		return work{d: &d}
	}, func(_ int, wk work) bool {
		d := wk.d
		if d == nil {
			return true
		}
		r, ok := rows[d.key]
		if wk.ident {
			werr = w.touch(d, now, r.id)
			return werr == nil
		}
		if ok {
			if werr = w.deleteDoc(r.id); werr != nil {
				return false
			}
		}
		if werr = w.insertDoc(d, now); werr != nil {
			return false
		}
		st.updated++
		return true
	})
	if werr != nil {
		return st, werr
	}
	if err := s.recordFiles(tx, source, fp); err != nil {
		return st, err
	}
	return st, tx.Commit()
}

// execer is what *sql.DB and *sql.Tx share for writes.
type execer interface {
	Exec(query string, args ...any) (sql.Result, error)
}

// recordFiles stores the fingerprint of the listing just synced and when.
func (s *store) recordFiles(e execer, source, fp string) error {
	_, err := e.Exec(`INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)`, "files:"+source, fp+" "+itoa64(time.Now().UnixNano()))
	return err
}

// filesFingerprint hashes a listing with the identity of every file.
func filesFingerprint(files []fileState) string {
	// The bytes of fidText, appended into one buffer: no allocation per
	// file on the path every warm query takes (issue 19).
	h := sha256.New()
	buf := make([]byte, 0, 256)
	for _, f := range files {
		buf = append(buf[:0], f.key...)
		buf = append(buf, 0)
		buf = appendFid(buf, f.fid)
		buf = append(buf, 0)
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// anyRacy: a file modified too close to the time the fingerprint was
// taken may have changed again within the same timestamp granule.
func anyRacy(files []fileState, at int64) bool {
	for _, f := range files {
		if f.fid.Racy(at, racyNs) {
			return true
		}
	}
	return false
}

func parseInt(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

func needsWork(rows map[string]row, files []fileState) bool {
	if len(rows) != len(files) {
		return true
	}
	for _, f := range files {
		r, ok := rows[f.key]
		if stale(r, ok, f) {
			return true
		}
	}
	return false
}

func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// ftsRow is a document's analyzed columns.
type ftsRow struct{ title, summary, body, tags, whole, surface string }

// analyzer is what one goroutine analyzing documents keeps: its
// analysis.Columns (with its own stem cache) and the set uniqueSurfaces
// reuses.
type analyzer struct {
	cols *analysis.Columns
	seen map[string]struct{}
}

// columnsPool holds the analyzers of the goroutines that analyze
// documents.
var columnsPool = sync.Pool{New: func() any {
	return &analyzer{cols: analysis.NewColumns(), seen: make(map[string]struct{}, 1024)}
}}

// analyzeDoc renders a document's full-text columns: each text column's
// stems, and over all four the stemmed wholes and the surfaces (issue 12;
// analysis.Columns, the same terms as analysis.Analyze). The surfaces
// are written once each (uniqueSurfaces).
func analyzeDoc(d *doc) *ftsRow {
	a := columnsPool.Get().(*analyzer)
	defer columnsPool.Put(a)
	var wholes, surfaces []byte
	col := func(text string) string {
		var stems []byte
		a.cols.Append(text, &stems, &wholes, &surfaces)
		return string(stems)
	}
	title := d.title
	if d.ftsTitle != "" {
		title = d.ftsTitle
	}
	r := &ftsRow{title: col(title), summary: col(d.summary), body: col(d.ftsBody), tags: col(strings.Join(d.tags, " "))}
	r.whole = string(wholes)
	r.surface = uniqueSurfaces(string(surfaces), a.seen)
	return r
}

// uniqueSurfaces keeps the first occurrence of each space-separated term
// of s, in order. The surface column serves prefix clauses alone (word*,
// Query.match: no phrase and no other clause reads it), for which a
// document either has a surface form with the prefix or not; writing
// each form once instead of once per occurrence halves the terms SQLite
// tokenizes and indexes in a first build (issue 19: the surfaces were
// as many as the stems). A prefix hit's surface term frequency is 1.
func uniqueSurfaces(s string, seen map[string]struct{}) string {
	clear(seen)
	out := make([]byte, 0, len(s)/2)
	for t := range strings.FieldsSeq(s) {
		if _, dup := seen[t]; dup {
			continue
		}
		seen[t] = struct{}{}
		if len(out) > 0 {
			out = append(out, ' ')
		}
		out = append(out, t...)
	}
	return string(out)
}

// stackFields stores a page's stack items one per line, as shown, and
// casefolded between newlines ("\ngo\ndocker\n"), so that --stack X is
// one instr() of "\nx\n": an item, not the whole written value.
func stackFields(items []string) (shown, folded string) {
	if len(items) == 0 {
		return "", ""
	}
	shown = strings.Join(items, "\n")
	return shown, "\n" + pytext.Casefold(shown) + "\n"
}

// tagField stores tags as " a b " so a tag filter is one instr().
func tagField(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return " " + strings.Join(tags, " ") + " "
}

// Compiled on first use, not in package init, which every git-echoes
// process runs (issue 19 part 0).
var (
	headingRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t#]*$`) })
	linkRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[\[([^\]\|#\n]+)`) })
)

// splitFrontmatter returns the body after a leading --- block and the
// number of lines before it.
func splitFrontmatter(text string) (body string, skipped int) {
	t := pytext.UniversalNewlines(text)
	if !strings.HasPrefix(t, "---\n") {
		return t, 0
	}
	pos, n := 4, 1
	for {
		line, next, ok := pytext.NextLine(t, pos)
		if !ok {
			return t, 0
		}
		n++
		if pytext.Strip(line) == "---" {
			return t[next:], n
		}
		pos = next
	}
}

func pageDoc(f fileState, text string) doc {
	d := doc{key: f.key, source: SourcePage, path: f.display, fid: f.fid, body: text, bodyLine: 1}
	info, err := gitvault.ParsePageInfo(text)
	if err != nil {
		d.invalid = gitvault.ErrorMessage(err)
		return d
	}
	d.typ, d.stack, d.status, d.summary = info.Type, info.Stack, info.Status, info.Summary
	body, _ := splitFrontmatter(text)
	d.ftsBody = body
	d.title = strings.TrimSuffix(f.rel, filepath.Ext(f.rel))
	if m := headingRe().FindStringSubmatch(body); m != nil {
		// The page's name is what a [[link]] to it says: it is indexed
		// with the heading, or a page that only links to this one would
		// match the name where this page does not (issue 17).
		d.ftsTitle = d.title + "\n" + m[1]
		d.title = m[1]
	}
	if info.Deprecated {
		for _, m := range linkRe().FindAllStringSubmatch(body, -1) {
			d.links = append(d.links, pytext.Casefold(strings.TrimSuffix(pytext.Strip(m[1]), ".md")))
		}
	}
	d.date = time.Unix(0, f.fid.Mtime).UTC().Format("2006-01-02")
	return d
}

func dailyDoc(f fileState, text string) doc {
	d := doc{key: f.key, source: SourceDaily, path: f.display, fid: f.fid, body: text, bodyLine: 1, ftsBody: text, title: f.rel}
	if i := strings.IndexByte(f.rel, '/'); i > 0 {
		d.date = f.rel[:i]
	}
	return d
}

func memoryDoc(e memory.Entry) doc {
	m := e.Memory
	return doc{key: "memory:" + e.Path, source: SourceMemory, path: e.Path, hash: hashBytes(m.Serialize()),
		title: m.Title, kind: m.Kind, scope: m.Scope, id: m.ID, status: m.Status, tags: m.Tags,
		date: m.UpdatedAt, body: m.Body, bodyLine: 1, ftsBody: m.Body}
}

// syncMemory indexes the memory scan of scopes. A stat walk of the scope
// roots fingerprints them; only when the fingerprint differs from the one
// the index was built at is the exact scan (memory.Scan, the search
// rules) run, and only memories whose content changed are re-indexed.
// fp is memoryFingerprint(roots, scopes), taken by the caller.
func (s *store) syncMemory(roots *memory.Roots, scopes []string, fp string) (syncStats, error) {
	var have string
	_ = s.db.QueryRow(`SELECT v FROM meta WHERE k = 'memory'`).Scan(&have)
	if fp != "" && have == fp {
		return syncStats{}, nil
	}
	entries, diag, err := memory.Scan(roots, scopes)
	if err != nil {
		return syncStats{}, err
	}
	tx, err := s.db.Begin()
	if err != nil {
		return syncStats{}, err
	}
	defer tx.Rollback()
	rows, err := s.loadRows(tx, SourceMemory)
	if err != nil {
		return syncStats{}, err
	}
	w := newTxWriter(tx)
	defer w.close()
	var st syncStats
	seen := map[string]bool{}
	now := time.Now().UnixNano()
	var todo []*doc
	for _, e := range entries {
		d := memoryDoc(e)
		seen[d.key] = true
		if r, ok := rows[d.key]; !ok || r.hash != d.hash {
			todo = append(todo, &d)
		}
	}
	// Analyze on every core while this goroutine writes, in order.
	var werr error
	workpool.Ordered(len(todo), runtime.GOMAXPROCS(0), 256, func(i int) *doc {
		todo[i].analyzed = analyzeDoc(todo[i])
		return todo[i]
	}, func(_ int, d *doc) bool {
		if r, ok := rows[d.key]; ok {
			if werr = w.deleteDoc(r.id); werr != nil {
				return false
			}
		}
		if werr = w.insertDoc(d, now); werr != nil {
			return false
		}
		st.updated++
		return true
	})
	if werr != nil {
		return st, werr
	}
	for k, r := range rows {
		if !seen[k] {
			if err := w.deleteDoc(r.id); err != nil {
				return st, err
			}
			st.removed++
		}
	}
	diagText := itoa(diag.InvalidFileCount) + " " + boolText(diag.Truncated)
	if _, err := tx.Exec(`INSERT OR REPLACE INTO meta(k, v) VALUES ('memory', ?), ('memorydiag', ?)`, fp, diagText); err != nil {
		return st, err
	}
	return st, tx.Commit()
}

func boolText(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// memoryFingerprint hashes the scopes' roots and every entry below them
// (a superset of what the scan reads: dot entries and symlinks included)
// with its Stamp. It is "" when it cannot be trusted: an entry is racy,
// or the walk is larger than the scan could ever read.
func memoryFingerprint(roots *memory.Roots, scopes []string) string {
	h := sha256.New()
	now := time.Now().UnixNano()
	count := 0
	racy := false
	for _, scope := range scopes {
		root := roots.ScopeRoot(scope)
		real, _ := filepath.EvalSymlinks(root)
		h.Write([]byte("\x00scope\x00" + scope + "\x00" + root + "\x00" + real + "\x00" + roots.Boundary(scope) + "\x00"))
		var buf []byte
		var walk func(dir, rel string, depth int)
		walk = func(dir, rel string, depth int) {
			if depth > memory.MaxScanDepth+1 || count > 4*memory.MaxScanEntries {
				count = 1 << 30
				return
			}
			fid, err := fsx.LstatStamp(dir)
			if err == nil {
				h.Write([]byte(rel + "\x00" + fidText(fid) + "\x00"))
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				h.Write([]byte("unreadable\x00"))
				return
			}
			stat := func(name string) (fsx.Stamp, error) { return fsx.LstatStamp(filepath.Join(dir, name)) }
			if d, err := fsx.OpenDir(dir); err == nil {
				defer d.Close()
				stat = d.Stamp
			}
			// The stat pass over a directory's files runs on every core,
			// as pageFiles' does (issue 19: it was a warm query's largest
			// cost after the ranking); the hash still takes the entries in
			// listing order, with the same bytes as before.
			fids := make([]fsx.Stamp, len(entries))
			errs := make([]error, len(entries))
			workpool.Chunks(len(entries), runtime.GOMAXPROCS(0), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					if !entries[i].Type().IsDir() {
						fids[i], errs[i] = stat(entries[i].Name())
					}
				}
			})
			for i, e := range entries {
				count++
				r := rel + "/" + e.Name()
				if e.Type().IsDir() {
					walk(filepath.Join(dir, e.Name()), r, depth+1)
					continue
				}
				buf = append(buf[:0], r...)
				if errs[i] != nil {
					h.Write(append(buf, "\x00gone\x00"...))
					continue
				}
				if fids[i].Racy(now, racyNs) {
					racy = true
				}
				buf = appendFid(append(buf, 0), fids[i])
				h.Write(append(buf, 0))
			}
		}
		walk(root, "", 0)
	}
	if racy || count >= 1<<30 {
		return ""
	}
	return strings.Join(scopes, ",") + ":" + hex.EncodeToString(h.Sum(nil))
}

// appendFid appends fidText(f).
func appendFid(b []byte, f fsx.Stamp) []byte {
	b = strconv.AppendInt(b, int64(int(f.Mode)), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, f.Size, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, f.Mtime, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, f.Ctime, 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, f.Dev, 10)
	b = append(b, ',')
	return strconv.AppendUint(b, f.Ino, 10)
}

func fidText(f fsx.Stamp) string {
	return itoa(int(f.Mode)) + "," + itoa64(f.Size) + "," + itoa64(f.Mtime) + "," + itoa64(f.Ctime) + "," + utoa(f.Dev) + "," + utoa(f.Ino)
}
