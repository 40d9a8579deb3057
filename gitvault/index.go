package gitvault

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
	"github.com/git-echoes/git-echoes/internal/workpool"
)

// pageSource is a read-only view of the vault's pages: the work tree, the
// Git index or a commit tree (design §one-snapshot-abstraction-three-sources).
type pageSource interface {
	// PageNames lists page file names in listing order (echoes-conformance §8.2).
	PageNames() ([]string, error)
	// ReadPage returns the raw bytes of one page.
	ReadPage(name string) ([]byte, error)
}

// pageText is one page read as text.
type pageText struct {
	Name string
	Text string
	Err  error // read or decode failure
}

// readPages reads every named page as text (echoes-conformance §2.3), in parallel, keeping the
// order of names. Reading dominates index renders of large vaults.
func readPages(src pageSource, names []string) []pageText {
	out := make([]pageText, len(names))
	Parallel(len(names), func(i int) {
		out[i].Name = names[i]
		data, err := src.ReadPage(names[i])
		if err != nil {
			out[i].Err = err
			return
		}
		out[i].Text, out[i].Err = pytext.DecodeText(data)
	})
	return out
}

// LoadedPage is one page read and parsed for an index render or health.
type LoadedPage struct {
	ReadErr, ParseErr error
	Page              *ParsedPage // detached from the read buffer
	Conflict          bool        // the conflict regex matches the page text (health)
}

// loadAndParse reads and parses every named page in parallel with one
// reusable buffer per worker, keeping only the parsed metadata: index
// renders of large vaults are dominated by this loop. Pages named in skip
// are left zero. withConflict also runs health's conflict-marker scan.
func loadAndParse(src pageSource, names []string, skip map[string]int, withConflict bool) []LoadedPage {
	out := make([]LoadedPage, len(names))
	read, done := bufferedReader(src)
	defer done()
	parallelWorkers(len(names), func() func(i int) {
		var buf []byte
		return func(i int) {
			if _, ok := skip[names[i]]; ok {
				return
			}
			var err error
			buf, err = read(names[i], buf)
			if err != nil {
				out[i].ReadErr = err
				return
			}
			if !utf8.Valid(buf) {
				out[i].ReadErr = pytext.ErrInvalidUTF8
				return
			}
			// Parse straight from the reused buffer, then copy out the few
			// strings a ParsedPage keeps: page bodies are never retained.
			text := pytext.UniversalNewlines(unsafeString(buf))
			out[i].Conflict = withConflict && HasConflictMarker(text)
			page, err := ParsePage(text, true, false)
			if err != nil {
				out[i].ParseErr = err
				return
			}
			out[i].Page = page.detach()
		}
	})
	return out
}

// pageReader reads one page into a caller's buffer.
type pageReader func(name string, buf []byte) ([]byte, error)

// dirSourceReader is implemented by sources that can read pages into reused
// buffers through one open directory handle.
type dirSourceReader interface {
	openDir() (pageReader, func(), error)
}

// bufferedReader returns the fastest page reader src offers and its
// Release function.
func bufferedReader(src pageSource) (pageReader, func()) {
	if d, ok := src.(dirSourceReader); ok {
		if read, done, err := d.openDir(); err == nil {
			return read, done
		}
	}
	return func(name string, _ []byte) ([]byte, error) { return src.ReadPage(name) }, func() {}
}

// Parallel runs fn(0..n-1) on up to GOMAXPROCS workers.
func Parallel(n int, fn func(i int)) {
	parallelWorkers(n, func() func(int) { return fn })
}

// parallelWorkers is parallel with per-worker state: newWorker is called
// once per worker goroutine.
func parallelWorkers(n int, newWorker func() func(i int)) {
	workpool.Each(n, runtime.GOMAXPROCS(0), newWorker)
}

// indexPage is one row source of the generated index.
type indexPage struct {
	Name string // file name as on disk (or proposed)
	Page *ParsedPage
}

// Slug is the NFC page stem used in the index row.
func (p indexPage) Slug() string { return pytext.NFC(PageStem(p.Name)) }

// index is a rendered index.md.
type Index struct {
	Text   string
	SHA256 string
	Pages  []indexPage // in row order
}

// RenderIndex validates the complete page set of src and renders the index
// (echoes-conformance §11.3): read failures first, then collisions, then parse failures, each
// in listing order. Proposed pages replace the file of the same name in
// place or are added after the listing, in order, as the reference's
// dictionary update does.
func RenderIndex(src pageSource, names []string, proposed []indexPage) (*Index, error) {
	replace := make(map[string]int, len(proposed))
	for i, p := range proposed {
		replace[p.Name] = i
	}
	return AssembleIndex(names, loadAndParse(src, names, replace, false), proposed)
}

// AssembleIndex applies echoes-conformance §11.3's ordering of failures to loaded pages and
// builds the index.
func AssembleIndex(names []string, loaded []LoadedPage, proposed []indexPage) (*Index, error) {
	replace := make(map[string]int, len(proposed))
	for i, p := range proposed {
		replace[p.Name] = i
	}
	for i, name := range names {
		if _, ok := replace[name]; !ok && loaded[i].ReadErr != nil {
			return nil, Wrapf(loaded[i].ReadErr, "Cannot read page %s: %s", name, ReadDetail(loaded[i].ReadErr))
		}
	}
	all := make([]string, 0, len(names)+len(proposed))
	pages := make([]indexPage, len(names), len(names)+len(proposed))
	for i, name := range names {
		all = append(all, name)
		if j, ok := replace[name]; ok {
			pages[i] = proposed[j]
			delete(replace, name)
		}
	}
	for _, p := range proposed {
		if _, isNew := replace[p.Name]; isNew {
			all = append(all, p.Name)
			pages = append(pages, p)
		}
	}
	if err := checkCollisions(all); err != nil {
		return nil, err
	}
	for i, l := range loaded {
		if pages[i].Page != nil {
			continue // a proposed page, already validated
		}
		if l.ParseErr != nil {
			return nil, Wrapf(l.ParseErr, "Cannot generate index from %s: %s", names[i], l.ParseErr.Error())
		}
		pages[i] = indexPage{Name: names[i], Page: l.Page}
	}
	return buildIndex(pages), nil
}

// renderTexts renders from pages already read as text (legacy migration
// reads them anyway to plan summaries).
func renderTexts(texts []pageText, proposed []indexPage) (*Index, error) {
	src := textSource{}
	names := make([]string, len(texts))
	for i, t := range texts {
		names[i] = t.Name
		src[t.Name] = t
	}
	return RenderIndex(src, names, proposed)
}

// textSource serves pages from memory.
type textSource map[string]pageText

func (s textSource) PageNames() ([]string, error) { return nil, nil }

func (s textSource) ReadPage(name string) ([]byte, error) {
	t := s[name]
	if t.Err != nil {
		return nil, t.Err
	}
	return []byte(t.Text), nil
}

// checkCollisions applies echoes-conformance §8.3 to names in iteration order.
func checkCollisions(names []string) error {
	seen := make(map[string]string, len(names))
	for _, n := range names {
		stem := pytext.NFC(PageStem(n))
		key := pytext.Casefold(stem)
		if first, ok := seen[key]; ok {
			return Errorf("Page filenames collide across filesystems: %s and %s.", pyjson.ReprString(first), pyjson.ReprString(stem))
		}
		seen[key] = stem
	}
	return nil
}

func buildIndex(pages []indexPage) *Index {
	keys := make([]pageSortKey, len(pages))
	order := make([]int, len(pages))
	for i, p := range pages {
		keys[i] = sortKey(p.Name)
		order[i] = i
	}
	// Pages come in listing order (sortPageNames), so the stable sort is
	// almost always the identity: check that in one pass first (issue 19,
	// hydrate on 100,000 pages). Only proposed pages added after the
	// listing put rows out of order.
	if !slices.IsSortedFunc(order, func(a, b int) int { return keys[a].cmp(keys[b]) }) {
		sort.SliceStable(order, func(a, b int) bool { return keys[order[a]].less(keys[order[b]]) })
	}
	var b strings.Builder
	// One allocation for the whole text (a 100,000-page index is about
	// 6 MB, and growing the builder copied it over and over).
	size := len(indexHeader) + 1
	slugs, sums := make([]string, len(pages)), make([]string, len(pages))
	for i, p := range pages {
		slugs[i], sums[i] = p.Slug(), indexSummary(p.Page)
		size += len("- [[]]: \n") + len(slugs[i]) + len(sums[i])
	}
	b.Grow(size)
	b.WriteString(indexHeader)
	sorted := make([]indexPage, len(pages))
	for i, idx := range order {
		p := pages[idx]
		sorted[i] = p
		if i == 0 {
			b.WriteString("\n")
		}
		b.WriteString("- [[")
		b.WriteString(slugs[idx])
		b.WriteString("]]: ")
		b.WriteString(sums[idx])
		b.WriteString("\n")
	}
	text := b.String()
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(text), len(text))) // read only: no copy of the text
	return &Index{Text: text, SHA256: hex.EncodeToString(sum[:]), Pages: sorted}
}

// indexSummary is the row text of a page, with the deprecation prefix (echoes-conformance §11.1).
func indexSummary(p *ParsedPage) string {
	if p.Deprecated() && !strings.HasPrefix(pytext.Casefold(p.Summary), "deprecated") {
		return "DEPRECATED — " + p.Summary
	}
	return p.Summary
}

// indexRow is one parsed line of an existing index.md.
type indexRow struct{ Slug, Description string }

// ParseIndexRows reads the rows of an existing index (echoes-conformance §11.3): the slug as
// written and the stripped description.
func ParseIndexRows(text string) []indexRow {
	var rows []indexRow
	for pos := 0; ; {
		line, next, ok := pytext.NextLine(text, pos)
		if !ok {
			return rows
		}
		pos = next
		if link, desc, ok := matchIndexRow(line); ok {
			rows = append(rows, indexRow{Slug: link, Description: pytext.Strip(desc)})
		}
	}
}

func ReadDetail(err error) string {
	if err == pytext.ErrInvalidUTF8 {
		return "invalid UTF-8"
	}
	return OSDetail(err)
}
