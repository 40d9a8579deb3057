package viewer

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"
)

// The providers of views still being built plug in through Config; these
// tests are the contract the integrator's implementations meet.

type historyFunc func(ctx context.Context, name string) (*PageLog, error)

func (f historyFunc) PageHistory(ctx context.Context, name string) (*PageLog, error) {
	return f(ctx, name)
}

type reviewFunc func(ctx context.Context, from, to string) (*Review, error)

func (reviewFunc) Default(context.Context) (string, string, string, bool) {
	return "", "", "Give two revisions.", false
}

func (f reviewFunc) Review(ctx context.Context, from, to string) (*Review, error) {
	return f(ctx, from, to)
}

type rankedSearch struct{ got SearchQuery }

func (*rankedSearch) Name() string { return "ranked" }
func (r *rankedSearch) Search(_ context.Context, q SearchQuery) (*SearchResults, error) {
	r.got = q
	return &SearchResults{Pages: []PageHit{{Slug: "session-tokens", Excerpt: "best <match>", Score: 2.5}}, Note: "ranked by BM25"}, nil
}

func TestHistoryProvider(t *testing.T) {
	f := newFixture(t)
	var asked string
	s := newServer(t, f, func(c *Config) {
		c.History = historyFunc(func(_ context.Context, name string) (*PageLog, error) {
			asked = name
			return &PageLog{Revisions: []Revision{{Commit: "0123456789abcdef0123", Author: "Ada <script>", Agent: "claude<b>",
				Date: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Summary: "Add <tokens>", Change: "modified", LinesAdded: 3, LinesRemoved: 1}},
				More: true, Note: "only <50>"}, nil
		})
	})
	_, body := get(t, s, "/page/auth-architecture")
	if asked != "auth-architecture.md" {
		t.Errorf("history asked for %q", asked)
	}
	mustContain(t, body, `<h2 id="hist-h">History</h2>`, "<code>0123456789ab</code>", "2026-01-02 03:04 UTC", "Ada &lt;script&gt;",
		"claude&lt;b&gt;", "Add &lt;tokens&gt;", "modified", `<span class="add">&#43;3</span> <span class="del">−1</span>`,
		"More commits exist.", "only &lt;50&gt;")
	s = newServer(t, f, func(c *Config) {
		c.History = historyFunc(func(context.Context, string) (*PageLog, error) { return nil, errors.New("no repository") })
	})
	_, body = get(t, s, "/page/auth-architecture")
	mustContain(t, body, `<p class="error">no repository</p>`)
	// ErrNoHistory: no section at all.
	s = newServer(t, f, func(c *Config) {
		c.History = historyFunc(func(context.Context, string) (*PageLog, error) { return nil, ErrNoHistory })
	})
	_, body = get(t, s, "/page/auth-architecture")
	mustNotContain(t, body, `id="hist-h"`)
}

func TestReviewProvider(t *testing.T) {
	f := newFixture(t)
	var from, to string
	s := newServer(t, f, func(c *Config) {
		c.Review = reviewFunc(func(_ context.Context, a, b string) (*Review, error) {
			from, to = a, b
			return &Review{From: a, To: b, Changes: []Change{{Vault: "memories", Path: "project:facts/mem_x.md", Title: "T<", Status: "added",
				Lines: []DiffLine{{Op: '+', Text: "new <line>"}, {Op: '-', Text: "old"}, {Op: ' ', Text: "same"}}}}}, nil
		})
	})
	_, body := get(t, s, "/")
	mustContain(t, body, `<a href="/review">Review</a>`)
	code, body := get(t, s, "/review")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	mustContain(t, body, `name="from"`, "Give two revisions.")
	mustNotContain(t, body, "change(s)")
	_, body = get(t, s, "/review?from=HEAD~1&to=HEAD")
	if from != "HEAD~1" || to != "HEAD" {
		t.Errorf("review asked %q..%q", from, to)
	}
	mustContain(t, body, "1 change(s)", `<span class="tag">added</span> memories: <code>project:facts/mem_x.md</code> — T&lt;`,
		`<span class="add">&#43;new &lt;line&gt;</span>`, `<span class="del">-old</span>`, `<span class="ctx"> same</span>`)
}

func TestSearchProvider(t *testing.T) {
	f := newFixture(t)
	rs := &rankedSearch{}
	s := newServer(t, f, func(c *Config) { c.Search = rs })
	_, body := get(t, s, "/search?q="+url.QueryEscape("tok en"))
	if rs.got.Text != "tok en" || rs.got.Limit != searchLimit {
		t.Errorf("query %+v", rs.got)
	}
	mustContain(t, body, "ranked search", `<a href="/page/session-tokens">session-tokens</a>`, "best &lt;match&gt;", "ranked by BM25",
		`<option value="ranked" selected>ranked</option>`, `<option value="literal">literal</option>`)
	// mode=literal: the literal search, on the same view.
	_, body = get(t, s, "/search?mode=literal&q=Tokens")
	mustContain(t, body, "literal search", `<option value="literal" selected>literal</option>`, `<a href="/page/auth-architecture">auth-architecture</a>`)
	if code, _ := get(t, s, "/search?mode=bogus&q=x"); code != 400 {
		t.Errorf("unknown mode: %d", code)
	}
}
