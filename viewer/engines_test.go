package viewer

import (
	"context"
	"errors"
	"fmt"
	"github.com/git-echoes/git-echoes/gitvault/review"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// The providers over the real engines, on the fixture's real Git
// repository (isolated from the machine's configuration).

// git runs the real git in the fixture, as Ada.
func (f *fixture) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", f.root}, args...)...)
	cmd.Env = append(f.environ, "GIT_AUTHOR_NAME=Ada Lovelace", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada Lovelace", "GIT_COMMITTER_EMAIL=ada@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (f *fixture) commitAll(t *testing.T, msg string) {
	t.Helper()
	f.git(t, "add", "-A")
	f.git(t, "commit", "-q", "-m", msg)
}

// withEngines configures the three real providers.
func withEngines(f *fixture) func(*Config) {
	return func(c *Config) {
		c.History = &LogHistory{Engine: f.eng}
		c.Review = &DiffReview{Engine: f.eng}
		c.Search = NewRankedSearch(f.eng, f.roots, c.UserScope)
	}
}

func TestLogHistoryRealGit(t *testing.T) {
	f := newFixture(t)
	s := newServer(t, f, withEngines(f))
	h := &LogHistory{Engine: f.eng}
	// A repository without commits: no history, and no section.
	if _, err := h.PageHistory(context.Background(), "session-tokens.md"); !errors.Is(err, ErrNoHistory) {
		t.Fatalf("before any commit: %v", err)
	}
	code, body := get(t, s, "/page/session-tokens")
	if code != 200 {
		t.Fatalf("page without commits: %d", code)
	}
	mustNotContain(t, body, `id="hist-h"`)

	f.commitAll(t, "Add the vault")
	// A rename with an edit, a summary holding markup, an agent trailer.
	if err := os.Remove(filepath.Join(f.eng.WS.Pages, "session-tokens.md")); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, filepath.Join(f.eng.WS.Pages, "tokens.md"), strings.Replace(fixturePages["session-tokens.md"],
		"summary: Session token format.", "summary: Session token <format>.", 1))
	f.commitAll(t, "Rename the token page\n\nAgent: codex<x>")

	log, err := h.PageHistory(context.Background(), "tokens.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := review.Log(f.eng, review.LogOptions{Target: "tokens.md", Follow: true, Limit: historyLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Revisions) != 2 || len(want.Entries) != 2 || log.More {
		t.Fatalf("history %+v, log %+v", log, want)
	}
	for i, r := range log.Revisions {
		if r.Commit != want.Entries[i].Commit || r.Summary != want.Entries[i].Summary || r.Author != want.Entries[i].Author {
			t.Errorf("revision %d: %+v, log says %+v", i, r, want.Entries[i])
		}
	}
	if r := log.Revisions[0]; r.Change != "renamed from session-tokens.md" || r.Agent != "codex<x>" || r.Summary != "Session token <format>." {
		t.Errorf("rename: %+v", r)
	}
	if r := log.Revisions[1]; r.Change != "added" || r.Summary != "Session token format." || r.LinesAdded == 0 {
		t.Errorf("first commit: %+v", r)
	}
	code, body = get(t, s, "/page/tokens")
	if code != 200 {
		t.Fatalf("page: %d", code)
	}
	mustContain(t, body, `<h2 id="hist-h">History</h2>`, "<code>"+log.Revisions[0].Commit[:12]+"</code>",
		"Ada Lovelace &lt;ada@example.com&gt;", "codex&lt;x&gt;", "renamed from session-tokens.md",
		"Session token &lt;format&gt;.", "added")
	mustNotContain(t, body, "More commits exist.", "<format>", "codex<x>")
	// A page never committed: the section says so.
	testenv.WriteFile(t, filepath.Join(f.eng.WS.Pages, "fresh.md"), "---\ntype: note\nstack: []\nstatus: active\nsummary: New.\n---\n\nNew.\n")
	_, body = get(t, s, "/page/fresh")
	mustContain(t, body, `id="hist-h"`, "No commit changes this page yet.")
}

func TestLogHistoryBounded(t *testing.T) {
	f := newFixture(t)
	f.commitAll(t, "Add the vault")
	p := filepath.Join(f.eng.WS.Pages, "old-auth.md")
	for i := 0; i < historyLimit; i++ {
		testenv.WriteFile(t, p, fixturePages["old-auth.md"]+fmt.Sprintf("\nEdit %d.\n", i))
		f.commitAll(t, fmt.Sprintf("Edit %d", i))
	}
	log, err := (&LogHistory{Engine: f.eng}).PageHistory(context.Background(), "old-auth.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Revisions) != historyLimit || !log.More || !strings.Contains(log.Note, "--limit 0") {
		t.Fatalf("%d revisions, more %v, note %q", len(log.Revisions), log.More, log.Note)
	}
	_, body := get(t, newServer(t, f, withEngines(f)), "/page/old-auth")
	mustContain(t, body, "More commits exist.", "Only the 50 most recent commits are shown")
	if n := strings.Count(body, "<tr><td><code>"); n != historyLimit {
		t.Errorf("%d rows", n)
	}
}

func TestDiffReviewRealGit(t *testing.T) {
	f := newFixture(t)
	s := newServer(t, f, withEngines(f))
	// No commits: the form, with why there is nothing to compare.
	code, body := get(t, s, "/review")
	if code != 200 {
		t.Fatalf("review without commits: %d", code)
	}
	mustContain(t, body, `name="from"`, "not in a Git repository with commits")
	mustNotContain(t, body, "change(s)")

	f.commitAll(t, "Add the vault")
	// One commit: no parent, no upstream.
	_, body = get(t, s, "/review")
	mustContain(t, body, "HEAD has no upstream and no parent")

	// A rename, a deprecation, a team memory.
	pages := f.eng.WS.Pages
	if err := os.Rename(filepath.Join(pages, "hostile.md"), filepath.Join(pages, "tricks.md")); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, filepath.Join(pages, "session-tokens.md"), strings.Replace(fixturePages["session-tokens.md"],
		"status: active", "status: deprecated", 1)+"\nReplaced by [[auth-architecture]].\n")
	f.commitAll(t, "Deprecate the token page\n\nAgent: claude")

	rv, err := (&DiffReview{Engine: f.eng}).Review(context.Background(), "HEAD~1", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	want, err := review.Diff(f.eng, review.RevRange{A: "HEAD~1", B: "HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	if rv.Headline != want.Headline() {
		t.Errorf("headline %q, diff says %q", rv.Headline, want.Headline())
	}
	// The default is HEAD~1..HEAD here: the same review.
	code, body = get(t, s, "/review")
	if code != 200 {
		t.Fatalf("review: %d\n%s", code, body)
	}
	mustContain(t, body, `value="HEAD~1"`, `value="HEAD"`, "from <code>HEAD~1</code> to <code>HEAD</code>",
		`<span class="tag">renamed</span> pages: <code>EchoesVault/pages/tricks.md</code> — A page full of &lt;script&gt; tricks.`,
		"renamed from hostile.md (",
		`<span class="tag">updated</span> <span class="tag warn">deprecated</span> pages: <code>EchoesVault/pages/session-tokens.md</code>`,
		`<span class="del">-status: active</span>`, `<span class="add">&#43;status: deprecated</span>`,
		"2 change(s)", "0 pages added, 0 removed, 1 renamed, 1 updated (1 deprecated)")
	mustNotContain(t, body, "<script>")
	// The same with one argument, a range.
	code, body2 := get(t, s, "/review?from=HEAD~1..HEAD")
	if code != 200 || !strings.Contains(body2, "(1 deprecated)") {
		t.Errorf("range: %d", code)
	}
	// Unknown revisions and bad ranges: 400 with the reason, never a crash.
	for _, q := range []string{"?from=no-such-branch&to=HEAD", "?from=HEAD~1&to=deadbeef", "?from=HEAD~5", "?from=a..b..c", "?from=&to=HEAD", "?from=-x"} {
		code, body := get(t, s, "/review"+q)
		if code != 400 || !strings.Contains(body, `class="error"`) {
			t.Errorf("%s: %d\n%s", q, code, body)
		}
	}
	_, body = get(t, s, "/review?from=no-such-branch&to=HEAD")
	mustContain(t, body, "Unknown revision: no-such-branch")
}

func TestDiffReviewUpstreamDefault(t *testing.T) {
	f := newFixture(t)
	f.commitAll(t, "Add the vault")
	f.git(t, "branch", "base")
	testenv.WriteFile(t, filepath.Join(f.eng.WS.Pages, "new-page.md"), "---\ntype: note\nstack: []\nstatus: active\nsummary: Fresh.\n---\n\nFresh.\n")
	f.commitAll(t, "One")
	testenv.WriteFile(t, filepath.Join(f.eng.WS.Pages, "other.md"), "---\ntype: note\nstack: []\nstatus: active\nsummary: Other.\n---\n\nOther.\n")
	f.commitAll(t, "Two")
	f.git(t, "branch", "--set-upstream-to=base")
	_, body := get(t, newServer(t, f, withEngines(f)), "/review")
	// The merge base with the upstream (base) against HEAD: both pages, as git echoes diff.
	mustContain(t, body, "merge-base(base, HEAD)", "2 pages added, 0 removed", "new-page.md", "other.md")
}

func TestRankedSearchRealEngine(t *testing.T) {
	f := newFixture(t)
	s := newServer(t, f, withEngines(f))
	// "describing" is in no page; "described" is, in auth-architecture.
	_, body := get(t, s, "/search?q=describing")
	mustContain(t, body, "ranked search", `<a href="/page/auth-architecture">auth-architecture</a>`, "Tokens are described in")
	_, body = get(t, s, "/search?mode=literal&q=describing")
	mustContain(t, body, "literal search", "No page matches.")
	mustNotContain(t, body, `<a href="/page/auth-architecture">`)
	// Daily entries are searched, and linked to their day.
	_, body = get(t, s, "/search?q=looking")
	mustContain(t, body, `<h2 id="sd-h">Daily entries (1)</h2>`, `<a href="/daily?day=`)
	mustNotContain(t, body, "<script>alert")
	// Memories: the user scope only with --scope user.
	_, body = get(t, s, "/search?q=tabs")
	mustNotContain(t, body, f.mem["user"])
	mustContain(t, body, "No memory matches.")
	us := newServer(t, f, func(c *Config) { c.UserScope = true; withEngines(f)(c) })
	_, body = get(t, us, "/search?q=tabs")
	mustContain(t, body, `<a href="/memory/`+f.mem["user"]+`">My private preference</a>`)
	_, body = get(t, s, "/search?q=rotating")
	mustContain(t, body, `<a href="/memory/`+f.mem["decision"]+`">Use short-lived tokens</a>`)
	// A query find refuses is shown, not a crash.
	code, body := get(t, s, "/search?q="+strings.Repeat("(", 3))
	if code != 200 || !strings.Contains(body, `class="error"`) {
		t.Errorf("bad ranked query: %d", code)
	}
	// Nothing was written: no find index under .git/echoes.
	if _, err := os.Lstat(filepath.Join(f.root, ".git", "echoes")); !os.IsNotExist(err) {
		t.Errorf(".git/echoes exists after ranked searches: %v", err)
	}
}
