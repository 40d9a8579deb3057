// Package find is the ranked search of `git echoes find` (issue 12): BM25
// over the EchoesVault pages, optionally the daily entries, and the ECC
// memories, from a derived local index (store.go) kept in step with the
// files by their identity (sync.go). Text analysis lives apart, in
// internal/analysis; the literal `search` of the protocol is untouched.
//
// The index is a cache, never authoritative: it lives outside every
// tree (gitvault.LocalCacheDir), every query revalidates it, an index that
// cannot be trusted is rebuilt, and deleting it loses nothing.
package find

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Limits of the options.
const (
	DefaultLimit = 10
	MaxLimit     = 100
	maxLines     = 3   // best lines per hit
	lineChars    = 200 // code points per best line
)

// Options are one query's parameters. Filters are lists of accepted
// values (any of them); empty means no filter.
type Options struct {
	Query    string
	Daily    bool     // include daily entries
	Scopes   []string // memory scopes; nil: project and team (ecc-conformance §12)
	Types    []string // page type
	Stacks   []string // page stack
	Statuses []string // page or memory status; memories are "active" unless given
	Kinds    []string // memory kind
	Tags     []string // memory tag
	Since    string   // YYYY-MM-DD: pages modified, daily entries dated, memories updated on or after
	Limit    int      // 0: DefaultLimit
	Rebuild  bool     // build a new index from scratch first
	// Syncing, when set, is called once before the index is brought up
	// to date or built: the answer could not be given from the index as
	// it stands (the CLI's collector setting follows it).
	Syncing func()
}

// Line is one best-matching line of a hit.
type Line struct {
	N    int
	Text string
}

// Hit is one ranked document.
type Hit struct {
	Source     string // SourcePage, SourceDaily or SourceMemory
	File       string // workspace-relative path, or "<scope>:<path>" for a memory
	ID         string // memory id
	Score      float64
	Title      string
	Summary    string
	Type       string
	Stack      []string // a page's stack items (gitvault.StackOf)
	Status     string
	Kind       string
	Scope      string
	Tags       []string
	Deprecated bool
	ReplacedBy []string // for a deprecated page: the linked pages found among the hits
	Lines      []Line
}

// Skipped is a page that does not parse: it is never matched (search
// still scans it) and every answer reports it.
type Skipped struct{ File, Error string }

// Result is a query's answer.
type Result struct {
	Query           string
	Hits            []Hit
	More            bool // more documents matched than the limit
	Skipped         []Skipped
	MemoryInvalid   int  // invalid memory files the scan reported
	MemoryTruncated bool // the memory scan stopped at its budget
	Index           IndexReport
}

// IndexReport says what the query did to the index.
type IndexReport struct {
	Rebuilt bool   // a new generation was built
	Reason  string // why, when Rebuilt
	Updated int    // documents (re)indexed
	Removed int    // documents dropped
}

// Error is an option the engine refuses: a usage error.
type Error = QueryError

// Find answers one query.
func Find(ws *gitvault.Workspace, opt Options) (*Result, error) {
	q, err := ParseQuery(opt.Query)
	if err != nil {
		return nil, err
	}
	if err := checkOptions(&opt); err != nil {
		return nil, err
	}
	if err := ws.Gate(); err != nil {
		return nil, err
	}
	src := sourcesOf(opt)
	var pre *statPass
	if !opt.Rebuild {
		var res *Result
		if res, pre = speculate(ws, q, opt, src); res != nil {
			return res, nil
		}
	}
	if opt.Syncing != nil {
		opt.Syncing()
	}
	s, rep, err := open(ws, src, opt.Rebuild, pre)
	if err != nil {
		return nil, err
	}
	res := &Result{Query: q.Raw, Index: rep}
	err = s.query(q, opt, src, res)
	s.close()
	if err != nil && isIndexError(err) && !rep.Rebuilt {
		// Damage that only the query reached: rebuild, ask once more.
		if s, rep, err = open(ws, src, true, nil); err != nil {
			return nil, err
		}
		rep.Reason = "the index failed a query: " + rep.Reason
		res = &Result{Query: q.Raw, Index: rep}
		err = s.query(q, opt, src, res)
		s.close()
	}
	if err != nil {
		return nil, gitvault.WrapError(err, "Cannot query the find index: "+err.Error())
	}
	return res, nil
}

// sourcesOf is what a query with opt (checked) covers: memory filters
// leave out pages and daily entries, page filters memories and daily
// entries.
func sourcesOf(opt Options) sourceSet {
	src := sourceSet{pages: true, daily: opt.Daily, memory: true, scopes: opt.Scopes}
	if len(opt.Kinds) > 0 || len(opt.Tags) > 0 {
		src.pages, src.daily = false, false
	}
	if len(opt.Types) > 0 || len(opt.Stacks) > 0 {
		src.memory, src.daily = false, false
	}
	return src
}

// Refresh brings the index of the workspace up to date (pages, daily
// entries and the default memory scopes), as hydrate does after a
// checkout or merge. A workspace without an initialized vault has
// nothing to index.
func Refresh(ws *gitvault.Workspace) error {
	if err := ws.Gate(); err != nil {
		return err
	}
	s, _, err := open(ws, sourceSet{pages: true, daily: true, memory: true, scopes: memory.DefaultScopes}, false, nil)
	if err != nil {
		return err
	}
	return s.close()
}

func checkOptions(opt *Options) error {
	if opt.Limit == 0 {
		opt.Limit = DefaultLimit
	}
	if opt.Limit < 1 || opt.Limit > MaxLimit {
		return qerr("--limit must be between 1 and 100.")
	}
	if (len(opt.Kinds) > 0 || len(opt.Tags) > 0) && (len(opt.Types) > 0 || len(opt.Stacks) > 0) {
		return qerr("--type and --stack filter pages, --kind and --tag filter memories: they cannot be combined.")
	}
	scopes, err := memory.ValidateScopes(opt.Scopes)
	if err != nil {
		return qerr(err.Error())
	}
	opt.Scopes = scopes
	if _, err := memory.ValidateKinds(nilIfEmpty(opt.Kinds)); err != nil {
		return qerr(err.Error())
	}
	if opt.Since != "" {
		if _, err := time.Parse("2006-01-02", opt.Since); err != nil {
			return qerr("--since must be a date YYYY-MM-DD, not " + quote(opt.Since) + ".")
		}
	}
	for _, list := range [][]string{opt.Types, opt.Stacks, opt.Statuses, opt.Tags} {
		for _, v := range list {
			if pytext.Strip(v) == "" {
				return qerr("filter values cannot be empty.")
			}
		}
	}
	return nil
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// open returns the live, up-to-date generation, building a new one when
// there is none it can trust. pre, when not nil, holds the stat passes
// the speculative path took moments before (speculate): the sync of the
// current generation starts from them instead of taking them again.
func open(ws *gitvault.Workspace, src sourceSet, rebuild bool, pre *statPass) (*store, IndexReport, error) {
	var cur *store // the generation speculate opened, closed unless used
	if pre != nil {
		cur, pre.current = pre.current, nil
	}
	defer func() {
		if cur != nil {
			cur.close()
		}
	}()
	cache, err := cacheDir(ws)
	if err != nil {
		return nil, IndexReport{}, err
	}
	roots, err := memory.ResolveRoots(memory.RootOptions{Cwd: ws.Root})
	if err != nil {
		return nil, IndexReport{}, err
	}
	dir := indexDir(cache, ws.Root)
	var rep IndexReport
	if !rebuild {
		var s *store
		var err error
		if cur != nil {
			s, cur = cur, nil
		} else {
			s, err = openCurrent(dir, ws.Root)
		}
		if err == nil {
			st, err := s.syncAll(ws, src, roots, pre)
			rep.Updated, rep.Removed = st.updated, st.removed
			if err == nil {
				return s, rep, nil
			}
			s.close()
			if !isIndexError(err) {
				return nil, rep, err
			}
			rep.Reason = "the index could not be updated: " + err.Error()
		} else if errors.Is(err, os.ErrNotExist) {
			rep.Reason = "there was no index"
		} else {
			rep.Reason = "the index could not be trusted: " + err.Error()
		}
	} else {
		rep.Reason = "--rebuild"
	}
	rep.Rebuilt = true
	// A new generation indexes every source, so later queries with other
	// options find it complete.
	all := sourceSet{pages: true, daily: true, memory: true, scopes: src.scopes}
	s, err := createGeneration(dir, ws.Root)
	var st syncStats
	if err == nil {
		st, err = s.syncAll(ws, all, roots, nil)
		if err != nil && !isIndexError(err) {
			s.discard()
			return nil, rep, err // the vault, not the index, failed
		}
		if err == nil {
			err = s.publish()
		}
		if err != nil {
			s.discard()
		}
	}
	if err != nil {
		// The index could not be written (its directory deleted while
		// this query built it, a full or read-only disk): it is a cache,
		// so the query is answered from a generation held in memory
		// instead, and the next query builds it again (issue 19: deleting
		// the index mid-query loses nothing).
		rep.Reason += "; the index could not be written (" + err.Error() + "): answered from memory"
		if s, err = createMemory(ws.Root); err != nil {
			return nil, rep, err
		}
		if st, err = s.syncAll(ws, all, roots, nil); err != nil {
			s.close()
			return nil, rep, err
		}
	}
	rep.Updated, rep.Removed = st.updated, st.removed
	return s, rep, nil
}

// isIndexError tells a failure of the index itself (rebuild it) from a
// failure to read the vault (report it).
func isIndexError(err error) bool {
	var pe *os.PathError
	var me *memory.Error
	var ge *gitvault.Error
	return !errors.As(err, &pe) && !errors.As(err, &me) && !errors.As(err, &ge)
}

// query runs q against the index and fills res.
func (s *store) query(q *Query, opt Options, src sourceSet, res *Result) error {
	tx, err := s.db.Begin() // one snapshot for the hits and the reports
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return queryTx(context.Background(), tx, q, opt, src, res)
}

// queryTx runs q in the snapshot of tx and fills res; cancelling ctx
// interrupts the ranking.
func queryTx(ctx context.Context, tx *sql.Tx, q *Query, opt Options, src sourceSet, res *Result) error {
	var where []string
	args := []any{q.match()}
	in := func(col string, vals []string, fold bool) {
		ph := make([]string, len(vals))
		for i, v := range vals {
			ph[i] = "?"
			v = pytext.Strip(v)
			if fold {
				v = pytext.Casefold(v)
			}
			args = append(args, v)
		}
		where = append(where, col+" IN ("+strings.Join(ph, ",")+")")
	}
	var sources []string
	if src.pages {
		sources = append(sources, SourcePage)
	}
	if src.daily {
		sources = append(sources, SourceDaily)
	}
	if src.memory {
		sources = append(sources, SourceMemory)
	}
	in("d.source", sources, false)
	if len(opt.Types) > 0 {
		in("d.ftype", opt.Types, true)
	}
	if len(opt.Stacks) > 0 {
		// Any of the values, each one item of the page's stack
		// (stackFields).
		ors := make([]string, len(opt.Stacks))
		for i, v := range opt.Stacks {
			ors[i] = "instr(d.fstack, ?) > 0"
			args = append(args, "\n"+pytext.Casefold(pytext.Strip(v))+"\n")
		}
		where = append(where, "("+strings.Join(ors, " OR ")+")")
	}
	if len(opt.Kinds) > 0 {
		in("d.kind", opt.Kinds, false)
	}
	if src.memory {
		// Memories are active unless a status is asked for (ecc-conformance §12.2).
		where = append(where, "(d.source != 'memory' OR d.scope IN ("+strings.Repeat("?,", len(opt.Scopes)-1)+"?))")
		for _, sc := range opt.Scopes {
			args = append(args, sc)
		}
		if len(opt.Statuses) == 0 {
			where = append(where, "(d.source != 'memory' OR d.status = 'active')")
		}
	}
	if len(opt.Statuses) > 0 {
		// Page statuses are casefolded; memory statuses are lowercase slugs.
		in("d.status", opt.Statuses, true)
	}
	for _, t := range opt.Tags {
		where = append(where, "instr(d.tags, ?) > 0")
		args = append(args, " "+pytext.Strip(t)+" ")
	}
	if opt.Since != "" {
		where = append(where, "substr(d.date, 1, 10) >= ?")
		args = append(args, opt.Since)
	}
	// Deprecated pages are re-ranked below their replacements, so a few
	// more candidates than the limit are fetched.
	fetch := opt.Limit*2 + 10
	args = append(args, fetch+1)
	// The ORDER BY names the result column, so bm25 is evaluated once per
	// matching document, not twice (-bm25 for the column, bm25 for the
	// order): about a tenth of a query that matches most of the vault
	// (issue 19). The score is negated here, exactly as SQL negated it.
	sqlText := `SELECT d.id, bm25(fts, ` + weights + `) AS s, d.source, d.path, d.memid, d.title, d.summary, d.type, d.stack,
		d.status, d.kind, d.scope, d.tags, d.links, d.bodyline
		FROM fts JOIN docs d ON d.id = fts.rowid
		WHERE fts MATCH ? AND ` + strings.Join(where, " AND ") + `
		ORDER BY s LIMIT ?`
	rows, err := tx.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return err
	}
	type cand struct {
		id    int64
		hit   Hit
		links []string
		body  string
		line0 int
	}
	var cands []cand
	for rows.Next() {
		var c cand
		var tags, links, stack string
		h := &c.hit
		if err := rows.Scan(&c.id, &h.Score, &h.Source, &h.File, &h.ID, &h.Title, &h.Summary, &h.Type, &stack,
			&h.Status, &h.Kind, &h.Scope, &tags, &links, &c.line0); err != nil {
			rows.Close()
			return err
		}
		h.Score = -h.Score // bm25 is lower for better matches
		h.Tags = strings.Fields(tags)
		if stack != "" {
			h.Stack = strings.Split(stack, "\n")
		}
		if links != "" {
			c.links = strings.Split(links, "\n")
		}
		h.Deprecated = h.Source == SourcePage && h.Status == "deprecated"
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(cands) > fetch {
		cands = cands[:fetch]
		res.More = true
	}
	// Deprecated pages: half the score, and never above a replacement
	// they link to.
	for i := range cands {
		if cands[i].hit.Deprecated {
			cands[i].hit.Score /= 2
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].hit.Score > cands[j].hit.Score })
	slug := func(h *Hit) string {
		base := h.File[strings.LastIndexAny(h.File, `/\`)+1:]
		return pytext.Casefold(strings.TrimSuffix(base, ".md"))
	}
	replacement := func(c *cand, h *Hit) bool { return !h.Deprecated && slices.Contains(c.links, slug(h)) }
	for i := range cands {
		c := &cands[i]
		if c.hit.Deprecated {
			for j := range cands {
				if replacement(c, &cands[j].hit) {
					c.hit.ReplacedBy = append(c.hit.ReplacedBy, cands[j].hit.File)
				}
			}
		}
	}
	// Only deprecated hits move, and only down: this ends.
	for i := 0; i < len(cands); i++ {
		c := &cands[i]
		if !c.hit.Deprecated || len(c.links) == 0 {
			continue
		}
		last := -1
		for j := range cands {
			if replacement(c, &cands[j].hit) {
				last = max(last, j)
			}
		}
		if last > i {
			moved := cands[i]
			moved.hit.Score = math.Min(moved.hit.Score, cands[last].hit.Score)
			copy(cands[i:last], cands[i+1:last+1])
			cands[last] = moved
			i-- // the element now at i has not been looked at
		}
	}
	if len(cands) > opt.Limit {
		cands = cands[:opt.Limit]
		res.More = true
	}
	lm := q.lineMatcher()
	// One statement for every hit's body: QueryRow on the transaction
	// would compile the same SQL once per hit.
	bodyStmt, err := tx.Prepare(`SELECT body FROM bodies WHERE id = ?`)
	if err != nil {
		return err
	}
	defer bodyStmt.Close()
	for _, c := range cands {
		if err := bodyStmt.QueryRow(c.id).Scan(&c.body); err != nil {
			return err
		}
		h := c.hit
		h.Score = roundScore(h.Score)
		h.Lines = bestLines(lm, c.body, c.line0, h.Source == SourcePage)
		res.Hits = append(res.Hits, h)
	}
	if src.pages {
		rows, err := tx.Query(`SELECT path, invalid FROM docs WHERE source = 'page' AND invalid != '' ORDER BY path`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var sk Skipped
			if err := rows.Scan(&sk.File, &sk.Error); err != nil {
				rows.Close()
				return err
			}
			res.Skipped = append(res.Skipped, sk)
		}
		rows.Close()
	}
	if src.memory {
		var diag string
		if err := tx.QueryRow(`SELECT v FROM meta WHERE k = 'memorydiag'`).Scan(&diag); err != nil && err != sql.ErrNoRows {
			return err
		}
		if f := strings.Fields(diag); len(f) == 2 {
			for _, ch := range f[0] {
				res.MemoryInvalid = res.MemoryInvalid*10 + int(ch-'0')
			}
			res.MemoryTruncated = f[1] == "1"
		}
	}
	return nil
}

// roundScore keeps four significant digits of a BM25 score. It used to be
// rounded to three decimals, which printed a real hit as 0.0 (issue 17):
// FTS5's bm25 floors the IDF of a term found in half the documents or
// more at 1e-6 (a small vault: a page and the pages linking to it), so
// every hit of such a term scores around 1e-6. Four significant digits
// keep a positive score positive and the order of the scores.
func roundScore(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	if err != nil {
		return x
	}
	return v
}

// bestLines picks up to maxLines lines that satisfy the most query
// clauses, in document order; a page's frontmatter is skipped (its summary
// is shown on its own).
func bestLines(lm *lineMatcher, text string, line0 int, page bool) []Line {
	body, skip := text, 0
	if page {
		body, skip = splitFrontmatter(text)
	} else {
		body = pytext.UniversalNewlines(body)
	}
	type scored struct {
		n     int
		score int
		text  string
	}
	var best []scored
	n := line0 + skip - 1
	for pos := 0; ; {
		line, next, ok := pytext.NextLine(body, pos)
		if !ok {
			break
		}
		pos = next
		n++
		t := pytext.Strip(line)
		if t == "" {
			continue
		}
		if sc := lm.score(t); sc > 0 {
			best = append(best, scored{n, sc, pytext.Truncate(t, lineChars)})
		}
	}
	sort.SliceStable(best, func(i, j int) bool { return best[i].score > best[j].score })
	if len(best) > maxLines {
		best = best[:maxLines]
	}
	sort.Slice(best, func(i, j int) bool { return best[i].n < best[j].n })
	out := make([]Line, len(best))
	for i, b := range best {
		out[i] = Line{N: b.n, Text: b.text}
	}
	return out
}

// Rebuild builds a new index generation from scratch (pages, daily
// entries, the given memory scopes) and publishes it.
func Rebuild(ws *gitvault.Workspace, scopes []string) (IndexReport, error) {
	scopes, err := memory.ValidateScopes(scopes)
	if err != nil {
		return IndexReport{}, qerr(err.Error())
	}
	if err := ws.Gate(); err != nil {
		return IndexReport{}, err
	}
	s, rep, err := open(ws, sourceSet{pages: true, daily: true, memory: true, scopes: scopes}, true, nil)
	if err != nil {
		return rep, err
	}
	return rep, s.close()
}
