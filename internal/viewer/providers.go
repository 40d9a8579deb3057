package viewer

import (
	"context"
	"time"
)

// The views that depend on commands still being built (the page history of
// `git echoes log`, the memory review of `git echoes diff`, the ranked search
// of `git echoes find`) are pluggable: each is one interface below, set in
// Config. A view whose provider is nil is not rendered at all (no link, no
// route): the viewer never shows a placeholder.

// Searcher answers the search view. LiteralSearch (search.go) is the
// implementation of today: the literal page search of `git echoes search`
// and the lexical memory search of `git echoes memory search`. A ranked
// searcher replaces it in Config.Search.
type Searcher interface {
	// Name is shown on the search view ("literal", "ranked").
	Name() string
	// Search runs one query. An error is shown on the view, as text.
	Search(ctx context.Context, q SearchQuery) (*SearchResults, error)
}

// SearchQuery is one search request.
type SearchQuery struct {
	Text  string // as typed, not yet trimmed
	Limit int    // maximum hits per vault (the viewer passes 100)
}

// SearchResults are the hits of one query, pages then memories.
type SearchResults struct {
	Pages     []PageHit
	Memories  []MemoryHit
	Truncated bool   // more hits exist than were returned
	Note      string // shown under the results ("" for none)
}

// PageHit is one page hit. Line is 0 when the hit is not one line.
type PageHit struct {
	Slug    string // the page's NFC stem: /page/<Slug>
	Line    int
	Excerpt string
	Score   float64 // 0 when unranked
}

// MemoryHit is one memory hit.
type MemoryHit struct {
	ID      string // /memory/<ID>
	Title   string
	Excerpt string
	Score   float64
}

// History lists the revisions of one page (`git echoes log`). When set, the
// page view shows the page's history.
type History interface {
	PageHistory(ctx context.Context, slug string) ([]Revision, error)
}

// Revision is one commit that changed a page.
type Revision struct {
	Commit  string // full or abbreviated object name
	Author  string
	Date    time.Time
	Subject string
	Change  string // "added", "modified", "deleted", "renamed", ...
}

// Reviewer renders the memory diff between two revisions (`git echoes
// diff`). When set, the review view exists at /review.
type Reviewer interface {
	Review(ctx context.Context, from, to string) (*Review, error)
}

// Review is the diff between two revisions of both vaults.
type Review struct {
	From, To string
	Changes  []Change
}

// Change is one changed page or memory.
type Change struct {
	Vault  string // "pages" or "memories"
	Path   string // vault-relative path
	Title  string
	Status string // "added", "modified", "deleted", "renamed"
	Lines  []DiffLine
}

// DiffLine is one line of a unified diff.
type DiffLine struct {
	Op   byte // '+', '-' or ' '
	Text string
}
