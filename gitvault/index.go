package gitvault

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/git-echoes/git-echoes/internal/jsonx"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// PageSource is a read-only view of the vault's pages: the work tree, the
// Git index or a commit tree (DESIGN "one snapshot abstraction").
type PageSource interface {
	// PageNames lists page file names in listing order (§8.2).
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

// readPages reads every named page as text (§2.3), in parallel, keeping the
// order of names. Reading dominates index renders of large vaults.
func readPages(src PageSource, names []string) []pageText {
	out := make([]pageText, len(names))
	parallel(len(names), func(i int) {
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

// parallel runs fn(0..n-1) on up to GOMAXPROCS workers.
func parallel(n int, fn func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	const batch = 64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				start := next
				next += batch
				mu.Unlock()
				if start >= n {
					return
				}
				end := min(start+batch, n)
				for i := start; i < end; i++ {
					fn(i)
				}
			}
		}()
	}
	wg.Wait()
}

// IndexPage is one row source of the generated index.
type IndexPage struct {
	Name string // file name as on disk (or proposed)
	Page *Page
}

// Slug is the NFC page stem used in the index row.
func (p IndexPage) Slug() string { return pytext.NFC(PageStem(p.Name)) }

// Index is a rendered index.md.
type Index struct {
	Text   string
	SHA256 string
	Pages  []IndexPage // in row order
}

// renderIndex validates the complete page set and renders the index
// (§11.3): read failures first, then collisions, then parse failures, each
// in listing order. Proposed pages replace the file of the same name in
// place or are added after the listing, in order, as the reference's
// dictionary update does.
func renderIndex(texts []pageText, proposed []IndexPage) (*Index, error) {
	for _, t := range texts {
		if t.Err != nil {
			return nil, wrapf(t.Err, "Cannot read page %s: %s", t.Name, readDetail(t.Err))
		}
	}
	replace := make(map[string]int, len(proposed))
	for i, p := range proposed {
		replace[p.Name] = i
	}
	names := make([]string, 0, len(texts)+len(proposed))
	pages := make([]IndexPage, len(texts), len(texts)+len(proposed))
	for i, t := range texts {
		names = append(names, t.Name)
		if j, ok := replace[t.Name]; ok {
			pages[i] = proposed[j]
			delete(replace, t.Name)
		}
	}
	for _, p := range proposed {
		if _, isNew := replace[p.Name]; isNew {
			names = append(names, p.Name)
			pages = append(pages, p)
		}
	}
	if err := checkCollisions(names); err != nil {
		return nil, err
	}
	errs := make([]error, len(texts))
	parallel(len(texts), func(i int) {
		if pages[i].Page != nil {
			return // a proposed page, already validated
		}
		pages[i].Name = texts[i].Name
		pages[i].Page, errs[i] = ParsePage(texts[i].Text, true)
	})
	for i, err := range errs {
		if err != nil {
			return nil, wrapf(err, "Cannot generate index from %s: %s", texts[i].Name, err.Error())
		}
	}
	return buildIndex(pages), nil
}

// checkCollisions applies §8.3 to names in iteration order.
func checkCollisions(names []string) error {
	seen := make(map[string]string, len(names))
	for _, n := range names {
		stem := pytext.NFC(PageStem(n))
		key := pytext.Casefold(stem)
		if first, ok := seen[key]; ok {
			return errorf("Page filenames collide across filesystems: %s and %s.", jsonx.ReprString(first), jsonx.ReprString(stem))
		}
		seen[key] = stem
	}
	return nil
}

func buildIndex(pages []IndexPage) *Index {
	keys := make([]pageSortKey, len(pages))
	order := make([]int, len(pages))
	for i, p := range pages {
		keys[i] = sortKey(p.Name)
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return keys[order[a]].less(keys[order[b]]) })
	var b strings.Builder
	b.WriteString(IndexHeader)
	sorted := make([]IndexPage, len(pages))
	for i, idx := range order {
		p := pages[idx]
		sorted[i] = p
		if i == 0 {
			b.WriteString("\n")
		}
		b.WriteString("- [[")
		b.WriteString(p.Slug())
		b.WriteString("]]: ")
		b.WriteString(IndexSummary(p.Page))
		b.WriteString("\n")
	}
	text := b.String()
	sum := sha256.Sum256([]byte(text))
	return &Index{Text: text, SHA256: hex.EncodeToString(sum[:]), Pages: sorted}
}

// IndexSummary is the row text of a page, with the deprecation prefix (§11.1).
func IndexSummary(p *Page) string {
	if p.Deprecated() && !strings.HasPrefix(pytext.Casefold(p.Summary), "deprecated") {
		return "DEPRECATED — " + p.Summary
	}
	return p.Summary
}

// IndexRow is one parsed line of an existing index.md.
type IndexRow struct{ Slug, Description string }

// ParseIndexRows reads the rows of an existing index (§11.3): the slug as
// written and the stripped description.
func ParseIndexRows(text string) []IndexRow {
	var rows []IndexRow
	for pos := 0; ; {
		line, next, ok := pytext.NextLine(text, pos)
		if !ok {
			return rows
		}
		pos = next
		if link, desc, ok := matchIndexRow(line); ok {
			rows = append(rows, IndexRow{Slug: link, Description: pytext.Strip(desc)})
		}
	}
}

func readDetail(err error) string {
	if err == pytext.ErrInvalidUTF8 {
		return "invalid UTF-8"
	}
	return osDetail(err)
}
