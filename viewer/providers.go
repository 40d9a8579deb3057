package viewer

import (
	"context"
	"errors"
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

// DailyHit is one daily entry hit.
type DailyHit struct {
	Day     string // YYYY-MM-DD: /daily?day=<Day>
	File    string // workspace-relative path
	Line    int
	Excerpt string
	Score   float64
}

// SearchResults are the hits of one query, pages then memories.
type SearchResults struct {
	Pages     []PageHit
	Daily     []DailyHit
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
	// PageHistory is the history of the page file name (e.g. "auth.md").
	// ErrNoHistory means there is none to show (not a Git repository, or
	// no commits yet): the page view then has no history section.
	PageHistory(ctx context.Context, name string) (*PageLog, error)
}

// ErrNoHistory is returned by a History that has no history to show.
var ErrNoHistory = errors.New("no history")

// PageLog is one page's history, newest first.
type PageLog struct {
	Revisions []Revision
	More      bool   // more commits exist than were returned
	Note      string // shown under the history ("" for none)
}

// Revision is one commit that changed a page.
type Revision struct {
	Commit       string // full or abbreviated object name
	Author       string
	Agent        string
	Date         time.Time
	Change       string // "added", "modified", "deleted", "renamed from x.md", ...
	Summary      string // the page's summary at this commit
	LinesAdded   int
	LinesRemoved int
	Binary       bool
}

// Reviewer renders the memory diff between two revisions (`git echoes
// diff`). When set, the review view exists at /review.
type Reviewer interface {
	// Default is the comparison the view shows when none is asked for
	// (what `git echoes diff` compares without arguments). ok is false
	// when there is none; note then says why, for the form.
	Default(ctx context.Context) (from, to string, note string, ok bool)
	// Review compares from and to (to "" is HEAD). A *RequestError is
	// the request's fault (an unknown revision): HTTP 400.
	Review(ctx context.Context, from, to string) (*Review, error)
}

// RequestError is an error in what the request asked for.
type RequestError struct{ Msg string }

func (e *RequestError) Error() string { return e.Msg }

// Review is the diff between two revisions of both vaults.
type Review struct {
	From, To string // what is compared, as labels
	Headline string // one-line summary ("" for none)
	Warnings []string
	Changes  []Change
}

// Change is one changed page, daily entry or memory.
type Change struct {
	Vault      string // "pages", "daily" or "memories"
	Path       string // workspace-relative path
	Title      string
	Status     string // "added", "updated", "removed", "renamed", ...
	Detail     string // e.g. "renamed from a.md (92%)", "+3 −1"
	Deprecated bool   // the change deprecates a page
	Lines      []DiffLine
}

// DiffLine is one line of a unified diff.
type DiffLine struct {
	Op   byte // '+', '-' or ' '
	Text string
}
