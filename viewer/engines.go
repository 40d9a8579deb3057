package viewer

import (
	"context"
	"fmt"
	"github.com/git-echoes/git-echoes/gitvault/review"
	"path/filepath"
	"strings"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/find"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// The providers over the real engines: the page history of `git echoes
// log`, the memory review of `git echoes diff` and the ranked search of
// `git echoes find`. All three only read: the history and the review read
// the object store; the ranked search keeps its index in memory
// (find.MemIndex), never the one under .git/echoes/find, which find
// creates and updates (a write, under SQLite's lock).

// historyLimit bounds a page's history on the page view.
const historyLimit = 50

// LogHistory is the History of `git echoes log --follow`.
type LogHistory struct{ Engine *gitvault.Engine }

// PageHistory implements History: the commits that changed the page,
// newest first, across renames, at most historyLimit of them.
func (h *LogHistory) PageHistory(_ context.Context, name string) (*PageLog, error) {
	if !review.HasCommits(h.Engine) {
		return nil, ErrNoHistory
	}
	res, err := review.Log(h.Engine, review.LogOptions{Target: name, Follow: true, Limit: historyLimit})
	if err != nil {
		return nil, fmt.Errorf("%s", gitvault.ErrorMessage(err))
	}
	out := &PageLog{More: res.Truncated}
	for _, e := range res.Entries {
		out.Revisions = append(out.Revisions, Revision{Commit: e.Commit, Author: e.Author, Agent: e.Agent, Date: e.Date,
			Change: logChange(e), Summary: e.Summary, LinesAdded: e.LinesAdded, LinesRemoved: e.LinesRemoved, Binary: e.Binary})
	}
	if res.Truncated {
		out.Note = fmt.Sprintf("Only the %d most recent commits are shown; for the whole history run: git echoes log %s --follow --limit 0",
			historyLimit, name)
	}
	return out, nil
}

func logChange(e review.LogEntry) string {
	switch e.Status {
	case "A":
		return "added"
	case "D":
		return "deleted"
	case "M":
		return "modified"
	case "T":
		return "type changed"
	case "R":
		return "renamed from " + baseName(e.OldPath)
	}
	return e.Status
}

// DiffReview is the Reviewer of `git echoes diff`.
type DiffReview struct{ Engine *gitvault.Engine }

// Default implements Reviewer: the merge base with the upstream against
// HEAD, as git echoes diff without arguments; without an upstream, HEAD~1
// against HEAD.
func (d *DiffReview) Default(context.Context) (string, string, string, bool) {
	if !review.HasCommits(d.Engine) {
		return "", "", "There is nothing to review: the workspace is not in a Git repository with commits.", false
	}
	rr, upstream, ok := review.DefaultDiffRange(d.Engine)
	switch {
	case upstream:
		return "", "", "", true
	case ok:
		return rr.A, rr.B, "", true
	}
	return "", "", "HEAD has no upstream and no parent: give two revisions to compare.", false
}

// Review implements Reviewer, reading its revisions as git echoes diff
// reads its arguments: from and to both "" is its default (the merge base
// with the upstream, against HEAD); from alone is one argument (A against
// HEAD, or a range A..B, A...B); from and to are A B.
func (d *DiffReview) Review(_ context.Context, from, to string) (*Review, error) {
	var args []string
	for _, a := range []string{from, to} {
		if a = strings.TrimSpace(a); a != "" {
			args = append(args, a)
		}
	}
	if strings.TrimSpace(from) == "" && len(args) > 0 {
		return nil, &RequestError{"Give the revision to compare from."}
	}
	rr, err := review.ParseRevRange(args, false)
	if err != nil {
		return nil, &RequestError{gitvault.ErrorMessage(err)}
	}
	if !rr.Upstream {
		for _, rev := range []string{rr.A, rr.B} {
			if err := review.CheckRevision(d.Engine, rev); err != nil {
				return nil, &RequestError{gitvault.ErrorMessage(err)}
			}
		}
	}
	res, err := review.Diff(d.Engine, rr)
	if err != nil {
		if rr.Upstream {
			return nil, &RequestError{gitvault.ErrorMessage(err)}
		}
		return nil, fmt.Errorf("%s", gitvault.ErrorMessage(err))
	}
	return reviewOf(res), nil
}

// reviewOf turns the diff into the view's changes: pages (what the
// frontmatter says before and after, as git echoes diff prints it), the
// daily entries added, the team memories added or changed.
func reviewOf(res *review.DiffResult) *Review {
	rv := &Review{From: res.From.Label, To: res.To.Label, Headline: res.Headline()}
	for _, f := range res.ProjectMemories {
		rv.Warnings = append(rv.Warnings, "Project-scope memory committed: "+f+" (project memories are personal; keep them out of Git).")
	}
	if res.RenameLimited {
		rv.Warnings = append(rv.Warnings, "Too many added and removed files: only exact renames were detected.")
	}
	for i := range res.Pages {
		p := &res.Pages[i]
		c := Change{Vault: "pages", Path: p.Path, Status: p.Change, Deprecated: p.Deprecated()}
		if p.After != nil {
			c.Title = p.After.Summary
		} else if p.Before != nil {
			c.Title = p.Before.Summary
		}
		var detail []string
		if p.Change == "renamed" {
			detail = append(detail, fmt.Sprintf("renamed from %s (%d%%)", p.OldName, p.Similarity))
		}
		if p.Binary {
			detail = append(detail, "binary")
		} else {
			detail = append(detail, fmt.Sprintf("+%d −%d lines", p.LinesAdded, p.LinesRemoved))
		}
		c.Detail = strings.Join(detail, ", ")
		c.Lines = metaLines(p)
		rv.Changes = append(rv.Changes, c)
	}
	for _, e := range res.Daily {
		c := Change{Vault: "daily", Path: e.Path, Status: "added", Title: e.Kind, Detail: strings.TrimSpace(e.Time + " " + e.Agent)}
		for _, l := range e.FirstLines {
			c.Lines = append(c.Lines, DiffLine{Op: '+', Text: l})
		}
		rv.Changes = append(rv.Changes, c)
	}
	for _, m := range res.Team {
		c := Change{Vault: "memories", Path: m.Path, Status: m.Change, Title: m.Title}
		if m.Invalid != "" {
			c.Detail = "invalid: " + m.Invalid
		} else {
			c.Detail = m.ID
			for _, f := range [][2]string{{"kind", m.Kind}, {"status", m.Status}, {"source harness", m.SourceHarness},
				{"targets", strings.Join(m.Targets, ", ")}, {"tags", strings.Join(m.Tags, ", ")}, {"links", strings.Join(m.Links, ", ")}} {
				if f[1] != "" {
					c.Lines = append(c.Lines, DiffLine{Op: ' ', Text: f[0] + ": " + f[1]})
				}
			}
		}
		rv.Changes = append(rv.Changes, c)
	}
	return rv
}

// metaLines are a page's frontmatter fields that changed, as diff lines:
// the before side '-', the after side '+' (git echoes diff's
// "summary: before → after").
func metaLines(p *review.PageChange) []DiffLine {
	b, a := p.Before, p.After
	if b == nil {
		b = &review.PageMeta{}
	}
	if a == nil {
		a = &review.PageMeta{}
	}
	var out []DiffLine
	both := p.Before != nil && p.After != nil
	for _, f := range [][3]string{{"invalid", b.Invalid, a.Invalid}, {"summary", b.Summary, a.Summary},
		{"status", b.Status, a.Status}, {"type", b.Type, a.Type}, {"stack", b.Stack, a.Stack}} {
		if f[1] == f[2] {
			if both || f[1] == "" {
				continue
			}
		}
		if p.Before != nil && f[1] != "" {
			out = append(out, DiffLine{Op: '-', Text: f[0] + ": " + f[1]})
		}
		if p.After != nil && f[2] != "" {
			out = append(out, DiffLine{Op: '+', Text: f[0] + ": " + f[2]})
		}
	}
	return out
}

// RankedSearch is the Searcher of `git echoes find`: BM25 over the pages,
// the daily entries and the memories of the viewer's scopes, from an index
// held in memory (find.MemIndex): nothing is written, no lock is taken,
// and each query revalidates the index by file identity.
type RankedSearch struct {
	Index  *find.MemIndex
	Scopes []string
}

// NewRankedSearch returns the ranked searcher of the workspace and roots.
func NewRankedSearch(eng *gitvault.Engine, roots *memory.Roots, userScope bool) *RankedSearch {
	return &RankedSearch{Index: find.NewMemIndex(eng.WS, roots), Scopes: memoryScopes(userScope)}
}

// Name implements Searcher.
func (*RankedSearch) Name() string { return "ranked" }

// Search implements Searcher. The limit is the find engine's: at most
// find.MaxLimit hits over all sources together.
func (r *RankedSearch) Search(_ context.Context, q SearchQuery) (*SearchResults, error) {
	res, err := r.Index.Find(find.Options{Query: q.Text, Daily: true, Scopes: r.Scopes, Limit: min(max(q.Limit, 1), find.MaxLimit)})
	if err != nil {
		return nil, fmt.Errorf("%s", gitvault.ErrorMessage(err))
	}
	out := &SearchResults{Truncated: res.More}
	for _, h := range res.Hits {
		line, excerpt := 0, h.Summary
		if len(h.Lines) > 0 {
			line, excerpt = h.Lines[0].N, h.Lines[0].Text
		}
		switch h.Source {
		case find.SourcePage:
			out.Pages = append(out.Pages, PageHit{Slug: pytext.NFC(strings.TrimSuffix(baseName(h.File), ".md")), Line: line, Excerpt: excerpt, Score: h.Score})
		case find.SourceDaily:
			rel := filepath.ToSlash(h.File)
			day := ""
			if i := strings.Index(rel, "daily/"); i >= 0 {
				day, _, _ = strings.Cut(rel[i+len("daily/"):], "/")
			}
			out.Daily = append(out.Daily, DailyHit{Day: day, File: rel, Line: line, Excerpt: excerpt, Score: h.Score})
		case find.SourceMemory:
			out.Memories = append(out.Memories, MemoryHit{ID: h.ID, Title: h.Title, Excerpt: excerpt, Score: h.Score})
		}
	}
	var notes []string
	notes = append(notes, "Ranked by BM25 over pages, daily entries and memories (the index is held in memory: nothing is written).")
	if len(res.Skipped) > 0 {
		notes = append(notes, fmt.Sprintf("%d invalid page(s) skipped.", len(res.Skipped)))
	}
	if res.MemoryInvalid > 0 || res.MemoryTruncated {
		notes = append(notes, "Memories: the scan was incomplete (truncated or invalid files); results may miss memories.")
	}
	out.Note = strings.Join(notes, " ")
	return out, nil
}

// Warm builds the in-memory index ahead of the first query (an error is
// left for the first query to report).
func (r *RankedSearch) Warm() { _ = r.Index.Warm(r.Scopes) }
