package viewer

import (
	"context"
	"strings"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// LiteralSearch is the Searcher of today: pages by the literal,
// case-insensitive line search of `git echoes search`
// (echoes-conformance §15.7), memories by the lexical search of
// `git echoes memory search` (ecc-conformance §12), over the viewer's scopes.
type LiteralSearch struct {
	Engine *gitvault.Engine
	Roots  *memory.Roots
	Scopes []string
}

// Name implements Searcher.
func (*LiteralSearch) Name() string { return "literal" }

// Search implements Searcher. A page-search error (an uninitialized vault)
// or a memory-search error is reported in Note; the other vault's hits are
// still returned.
func (l *LiteralSearch) Search(_ context.Context, q SearchQuery) (*SearchResults, error) {
	res := &SearchResults{}
	var notes []string
	pr, err := l.Engine.Search(q.Text, q.Limit)
	if err != nil {
		notes = append(notes, "Pages: "+gitvault.ErrorMessage(err))
	} else {
		res.Truncated = pr.Truncated
		for _, h := range pr.Hits {
			res.Pages = append(res.Pages, PageHit{Slug: pytext.NFC(strings.TrimSuffix(baseName(h.File), ".md")), Line: h.Line, Excerpt: h.Text})
		}
	}
	mr, err := memory.Search(l.Roots, memory.SearchOptions{Query: q.Text, Scopes: l.Scopes, Limit: q.Limit})
	if err != nil {
		notes = append(notes, "Memories: "+err.Error())
	} else {
		for _, h := range mr.Results {
			res.Memories = append(res.Memories, MemoryHit{ID: h.Memory.ID, Title: h.Memory.Title, Excerpt: h.Excerpt, Score: float64(h.Score)})
		}
		if mr.Diagnostics.Truncated || mr.Diagnostics.InvalidFileCount > 0 {
			notes = append(notes, "Memories: the scan was incomplete (truncated or invalid files); results may miss memories.")
		}
	}
	res.Note = strings.Join(notes, " ")
	return res, nil
}

// baseName is the last element of a slash- or OS-separated path.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
