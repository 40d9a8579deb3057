package viewer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/freshness"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Memory freshness in the viewer (issue 18, "Where it shows: Viewer"): a
// badge on each page and memory a screen shows (fresh, drifted, moved,
// missing, uncited), the drift commits on the page view, and a link to
// the review view for the range since the page's anchor. The verdicts are
// git echoes stale's (gitvault/freshness.Check, the same documents), and
// are computed lazily: only for the rows of the screen being shown.

// Freshness answers the verdicts of the documents a screen shows.
type Freshness interface {
	// Pages returns the reports of the named pages of the work tree
	// against HEAD, in order, and HEAD's commit id; ErrNoHistory when
	// the workspace has no commit to read history from.
	Pages(ctx context.Context, names []string) (head string, reps []freshness.Report, err error)
	// Memories returns the reports of the memories (body citations,
	// anchored at HEAD as of updated_at), in order; a memory that cannot
	// be checked (outside the repository) has a zero Report.
	Memories(ctx context.Context, entries []memory.Entry) (head string, reps []freshness.Report, err error)
}

// GitFreshness is the Freshness of git echoes stale. The viewer writes
// nothing, so it does not use stale's verdict cache file
// (.git/echoes/stale/verdicts.json, which CheckCached rewrites): it keeps
// the reports in memory instead, keyed as that cache keys them (the HEAD
// commit, and the document's path, kind, updated_at, work-tree flag and
// text), and forgets them when HEAD moves.
type GitFreshness struct {
	Engine *gitvault.Engine
	Roots  *memory.Roots

	mu   sync.Mutex
	head string
	memo map[string]freshness.Report
}

// maxMemo bounds the reports kept for one HEAD.
const maxMemo = 20000

// Pages implements Freshness.
func (g *GitFreshness) Pages(_ context.Context, names []string) (string, []freshness.Report, error) {
	repo, head, err := g.open()
	if err != nil {
		return "", nil, err
	}
	tr := repo.NewTreeReader()
	defer tr.Close()
	hc, err := repo.CommitInfo(head)
	if err != nil {
		return "", nil, err
	}
	docs := make([]freshness.Doc, len(names))
	for i, name := range names {
		p := freshness.PagesDir + "/" + name
		text, exists, err := g.Engine.ReadPageText(name)
		if err != nil || !exists {
			return "", nil, fmt.Errorf("cannot read page %s: %s", name, readDetail(err))
		}
		// Uncommitted changes anchor the page at the work tree; compared
		// as the page reader decodes both sides (a CRLF checkout of an LF
		// blob is no change), as git echoes stale compares them.
		work := true
		if it, ok, err := tr.Entry(hc.Tree, p); err == nil && ok {
			if blob, err := repo.ReadBlob(it.Hash); err == nil {
				if old, err := pytext.DecodeText(blob); err == nil && old == text {
					work = false
				}
			}
		}
		docs[i] = freshness.Doc{Path: p, Text: text, WorkTree: work}
	}
	reps, err := g.check(repo, head, docs)
	return head, reps, err
}

func readDetail(err error) string {
	if err == nil {
		return "it does not exist"
	}
	return gitvault.ErrorMessage(err)
}

// Memories implements Freshness.
func (g *GitFreshness) Memories(_ context.Context, entries []memory.Entry) (string, []freshness.Report, error) {
	repo, head, err := g.open()
	if err != nil {
		return "", nil, err
	}
	reps := make([]freshness.Report, len(entries))
	var docs []freshness.Doc
	var at []int
	for i, e := range entries {
		m := e.Memory
		scope, rel, _ := strings.Cut(e.Path, ":")
		if g.Roots == nil || scope == "user" {
			continue // outside the repository
		}
		full := filepath.Join(g.Roots.ScopeRoot(scope), filepath.FromSlash(rel))
		rp, err := filepath.Rel(g.Engine.WS.Root, full)
		if err != nil || rp == ".." || strings.HasPrefix(rp, ".."+string(filepath.Separator)) {
			continue
		}
		updated, err := time.Parse(time.RFC3339Nano, m.UpdatedAt)
		if err != nil {
			continue
		}
		docs = append(docs, freshness.Doc{Path: filepath.ToSlash(rp), Text: m.Body, Memory: true, UpdatedAt: updated})
		at = append(at, i)
	}
	got, err := g.check(repo, head, docs)
	if err != nil {
		return "", nil, err
	}
	for j, r := range got {
		reps[at[j]] = r
	}
	return head, reps, nil
}

// open opens the repository and resolves HEAD.
func (g *GitFreshness) open() (*gitrepo.Repo, string, error) {
	if !g.Engine.WS.InGit {
		return nil, "", ErrNoHistory
	}
	repo, err := gitrepo.Open(g.Engine.WS.Root)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read the Git repository: %w", err)
	}
	head, err := repo.ResolveCommit("HEAD")
	if err != nil {
		return nil, "", ErrNoHistory
	}
	return repo, head, nil
}

// check is freshness.Check over the documents the memo does not hold.
func (g *GitFreshness) check(repo *gitrepo.Repo, head string, docs []freshness.Doc) ([]freshness.Report, error) {
	reps := make([]freshness.Report, len(docs))
	keys := make([]string, len(docs))
	var miss []freshness.Doc
	var missAt []int
	g.mu.Lock()
	if g.head != head || len(g.memo) > maxMemo {
		g.head, g.memo = head, map[string]freshness.Report{}
	}
	for i, d := range docs {
		keys[i] = memoKey(d)
		if r, ok := g.memo[keys[i]]; ok {
			reps[i] = r
		} else {
			miss = append(miss, d)
			missAt = append(missAt, i)
		}
	}
	g.mu.Unlock()
	if len(miss) == 0 {
		return reps, nil
	}
	got, err := freshness.Check(repo, head, miss)
	if err != nil {
		return nil, fmt.Errorf("cannot compute freshness: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for j, r := range got {
		reps[missAt[j]] = r
		if g.head == head {
			g.memo[keys[missAt[j]]] = r
		}
	}
	return reps, nil
}

// memoKey is what a report depends on besides HEAD (as the verdict cache
// keys it): the shallow boundary changes only with a fetch, which moves
// HEAD's history, so the memo is also dropped when HEAD moves.
func memoKey(d freshness.Doc) string {
	h := sha256.New()
	for _, s := range []string{d.Path, strconv.FormatBool(d.Memory), d.UpdatedAt.UTC().String(), strconv.FormatBool(d.WorkTree), d.Text} {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ---- what the views show ----

// badge is one document's verdict as shown.
type badge struct {
	Verdict string // fresh, drifted, moved, missing, uncited
	Title   string // the reason, one line per citation not fresh
}

func badgeOf(r freshness.Report) *badge {
	b := &badge{Verdict: string(r.Verdict)}
	switch r.Verdict {
	case freshness.Uncited:
		b.Title = "cites no code"
	case freshness.Fresh:
		b.Title = "every cited path is unchanged since " + anchorLabel(r.Anchor)
	default:
		b.Title = strings.Join(r.Lines(), "\n")
	}
	return b
}

// anchorLabel names an anchor: "abc1234 (2026-11-28)" or "the work tree".
func anchorLabel(a freshness.Anchor) string {
	if a.WorkTree || a.Commit == "" {
		return "the work tree (uncommitted changes)"
	}
	return a.Commit[:min(7, len(a.Commit))] + " (" + a.Date.UTC().Format("2006-01-02") + ")"
}

// pageFreshness is the page view's freshness section.
type pageFreshness struct {
	Badge      *badge
	Anchor     string
	Verified   bool
	Shallow    bool
	Citations  []citeRow
	Invalid    []string // sources: entries that are not citations
	ReviewHref string   // the review view for the range since the anchor ("" when none)
	Err        string
}

// citeRow is one citation of the page view.
type citeRow struct {
	Cite    string
	Verdict string
	Why     string
	Commits []freshness.CommitRef
	More    int // commits not listed (Count - len(Commits))
}

// pageBadges fills the freshness badges of the rows a screen shows; it
// returns a note when there are none.
func (s *Server) pageBadges(r *http.Request, rows []pageRow) string {
	if s.cfg.Freshness == nil || len(rows) == 0 {
		return ""
	}
	var names []string
	var at []int
	for i, row := range rows {
		if row.P.Err == "" {
			names = append(names, row.P.Name)
			at = append(at, i)
		}
	}
	_, reps, err := s.cfg.Freshness.Pages(r.Context(), names)
	if err == ErrNoHistory {
		return "No freshness: the workspace has no Git commit yet."
	}
	if err != nil {
		return "Freshness could not be computed: " + err.Error()
	}
	for j, rep := range reps {
		rows[at[j]].Fresh = badgeOf(rep)
	}
	return ""
}

// pageFreshness computes the page view's section.
func (s *Server) pageFreshness(r *http.Request, p *gitvault.BrowsePage) *pageFreshness {
	if s.cfg.Freshness == nil || p.Err != "" {
		return nil
	}
	head, reps, err := s.cfg.Freshness.Pages(r.Context(), []string{p.Name})
	if err == ErrNoHistory {
		return nil
	}
	if err != nil {
		return &pageFreshness{Err: err.Error()}
	}
	rep := reps[0]
	f := &pageFreshness{Badge: badgeOf(rep), Anchor: anchorLabel(rep.Anchor), Verified: rep.Anchor.Verified, Shallow: rep.Anchor.Shallow}
	for _, c := range rep.Citations {
		f.Citations = append(f.Citations, citeRow{Cite: c.Citation.String(), Verdict: string(c.Verdict), Why: c.Why(),
			Commits: c.Commits, More: max(0, c.Count-len(c.Commits))})
	}
	for _, bad := range rep.Invalid {
		entry := bad.Entry
		if entry == "" {
			entry = "sources"
		}
		f.Invalid = append(f.Invalid, fmt.Sprintf("line %d: %s: %s", bad.Line, entry, bad.Reason))
	}
	if s.cfg.Review != nil && !rep.Anchor.WorkTree && rep.Anchor.Commit != "" && rep.Anchor.Commit != head {
		f.ReviewHref = "/review" + queryString("from", rep.Anchor.Commit, "to", head)
	}
	return f
}

// memoryBadges returns the badges of the memories a screen shows (nil
// entries for those without one), and a note when there are none.
func (s *Server) memoryBadges(r *http.Request, entries []memory.Entry) ([]*badge, string) {
	if s.cfg.Freshness == nil || len(entries) == 0 {
		return nil, ""
	}
	_, reps, err := s.cfg.Freshness.Memories(r.Context(), entries)
	if err == ErrNoHistory {
		return nil, "No freshness: the workspace has no Git commit yet."
	}
	if err != nil {
		return nil, "Freshness could not be computed: " + err.Error()
	}
	out := make([]*badge, len(entries))
	for i, rep := range reps {
		if rep.Path != "" {
			out[i] = badgeOf(rep)
		}
	}
	return out, ""
}
