package viewer

import (
	"html"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// commitAt commits everything with the given author and committer date.
func (f *fixture) commitAt(t *testing.T, date, msg string) string {
	t.Helper()
	f.git(t, "add", "-A")
	cmd := exec.Command("git", "-C", f.root, "commit", "-q", "-m", msg)
	cmd.Env = append(f.environ, "GIT_AUTHOR_NAME=Ada Lovelace", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada Lovelace", "GIT_COMMITTER_EMAIL=ada@example.com",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	return strings.TrimSpace(f.git(t, "rev-parse", "HEAD"))
}

const authGo = "package auth\n\n// Validate checks a token.\nfunc Validate(tok string) bool {\n\treturn tok != \"\"\n}\n"

// freshnessFixture: pages citing code (a sources: line range, a body
// code span, nothing), committed in 2020; then, in 2030, a commit
// "rotate keys" that rewrites the cited lines and deletes a cited file,
// and a team memory citing the changed file.
func freshnessFixture(t *testing.T) (f *fixture, anchor, head string) {
	f = newFixture(t)
	testenv.WriteFile(t, filepath.Join(f.root, "src", "auth.go"), authGo)
	testenv.WriteFile(t, filepath.Join(f.root, "src", "old.go"), "package auth\n")
	testenv.WriteFile(t, filepath.Join(f.root, "src", "stable.go"), "package auth\n\nconst Stable = 1\n")
	testenv.WriteFile(t, filepath.Join(f.eng.WS.Pages, "token-code.md"), "---\ntype: reference\nstack: [go]\nstatus: active\n"+
		"summary: Where tokens are validated.\nsources: [src/auth.go:4-6]\n---\n\nTokens are validated in `src/auth.go`; the old helpers lived in `src/old.go`.\n")
	testenv.WriteFile(t, filepath.Join(f.eng.WS.Pages, "stable-code.md"), "---\ntype: reference\nstack: [go]\nstatus: active\n"+
		"summary: A constant.\n---\n\nSee `src/stable.go`.\n")
	anchor = f.commitAt(t, "2020-01-02T03:04:05Z", "Add the vault and the code")
	testenv.WriteFile(t, filepath.Join(f.root, "src", "auth.go"), strings.Replace(authGo, `tok != ""`, `len(tok) == 32`, 1))
	f.git(t, "rm", "-q", "src/old.go")
	head = f.commitAt(t, "2030-01-02T03:04:05Z", "rotate keys")
	return f, anchor, head
}

func withFreshness(f *fixture) func(*Config) {
	return func(c *Config) {
		withEngines(f)(c)
		c.Freshness = &GitFreshness{Engine: f.eng, Roots: f.roots}
	}
}

// TestFreshnessViews (issue 18, "Viewer"): the badges of the pages screen,
// the page view's citations with the drift commits, and the link to the
// review view for the range since the anchor, which answers.
func TestFreshnessViews(t *testing.T) {
	f, anchor, head := freshnessFixture(t)
	s := newServer(t, f, withFreshness(f))

	_, body := get(t, s, "/pages")
	badges := map[string]string{}
	row := regexp.MustCompile(`<td><a href="/page/([^"]+)">[^<]*</a>[^\n]*</td>\n<td>(?:<span class="tag fresh-([a-z]+)")?`)
	for _, m := range row.FindAllStringSubmatch(body, -1) {
		badges[m[1]] = m[2]
	}
	for slug, want := range map[string]string{"token-code": "missing", "stable-code": "fresh", "hostile": "uncited",
		"auth-architecture": "fresh"} { // auth-architecture links session-tokens.md, a tracked file {
		if badges[slug] != want {
			t.Errorf("/pages: %s has badge %q, want %q (all: %v)", slug, badges[slug], want, badges)
		}
	}

	code, body := get(t, s, "/page/token-code")
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	text := html.UnescapeString(body)
	mustContain(t, text, `id="freshness"`, `<span class="tag fresh-missing"`, "Anchored at "+anchor[:7]+" (2020-01-02)",
		"src/auth.go:4-6", "src/auth.go", "src/old.go", "fresh-drifted", "changed in 1 commit since this page, last 2030-01-02 'rotate keys'",
		head[:7]+"</code> rotate keys — Ada Lovelace <ada@example.com>, 2030-01-02 03:04 UTC", "deleted")
	if !regexp.MustCompile(`<span class="add">\+1</span> <span class="del">−1</span>`).MatchString(text) {
		t.Error("the drift commit has no line counts +1 −1")
	}
	review := "/review?from=" + anchor + "&to=" + head
	mustContain(t, text, `<a id="review-since" href="`+review+`">`)
	code, body = get(t, s, review)
	if code != http.StatusOK {
		t.Fatalf("the review link answers %d", code)
	}
	mustContain(t, body, `value="`+anchor+`"`, `value="`+head+`"`, "change(s) from <code>")

	_, body = get(t, s, "/page/stable-code")
	mustContain(t, body, `<span class="tag fresh-fresh"`, "src/stable.go")
	if strings.Contains(body, `id="review-since"`) {
		// The anchor is the first commit and HEAD moved: the range exists.
	} else {
		t.Error("a fresh page anchored before HEAD has no review link")
	}

	// An uncommitted edit anchors the page at the work tree: fresh while
	// its citations exist, and no review range.
	testenv.WriteFile(t, filepath.Join(f.eng.WS.Pages, "token-code.md"), "---\ntype: reference\nstack: [go]\nstatus: active\n"+
		"summary: Where tokens are validated.\nsources: [src/auth.go:4-6]\n---\n\nRewritten against the new code.\n")
	_, body = get(t, s, "/page/token-code")
	mustContain(t, body, "the work tree (uncommitted changes)", `<span class="tag fresh-fresh"`)
	if strings.Contains(body, `id="review-since"`) {
		t.Error("a page anchored at the work tree links a review range")
	}
}

// TestFreshnessMemories: a team memory citing code in its body has a
// badge on the memories list and its view; a memory of the user scope
// (outside the repository) has none.
func TestFreshnessMemories(t *testing.T) {
	f, _, _ := freshnessFixture(t)
	res, err := memory.Save(f.roots, memory.SaveInput{Title: "Where validation lives", Body: "Validation is in `src/auth.go`.",
		Kind: "fact", Scope: "team", SourceHarness: "claude", TargetHarnesses: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, f, withFreshness(f))
	_, body := get(t, s, "/memory/"+res.Memory.ID)
	// Saved now, between the 2020 commit and the 2030 one: anchored at
	// HEAD as of its updated_at, the 2020 commit, so the file drifted.
	mustContain(t, body, `<dd id="freshness"><span class="tag fresh-drifted"`, "rotate keys")
	_, body = get(t, s, "/memories")
	mustContain(t, body, `class="tag fresh-drifted"`, `class="tag fresh-uncited"`)
	us := newServer(t, f, func(c *Config) { withFreshness(f)(c); c.UserScope = true })
	code, body := get(t, us, "/memory/"+f.mem["user"])
	if code != http.StatusOK {
		t.Fatalf("user memory: status %d", code)
	}
	if strings.Contains(body, `id="freshness"`) {
		t.Errorf("a memory outside the repository has a badge")
	}
	_, body = get(t, us, "/memory/"+res.Memory.ID)
	mustContain(t, body, `<dd id="freshness"><span class="tag fresh-drifted"`)
}

// TestFreshnessWithoutCommits: without a commit there is no verdict: the
// views say so and show no badge.
func TestFreshnessWithoutCommits(t *testing.T) {
	f := newFixture(t)
	s := newServer(t, f, withFreshness(f))
	_, body := get(t, s, "/pages")
	mustContain(t, body, "No freshness: the workspace has no Git commit yet.")
	if strings.Contains(body, `class="tag fresh-`) {
		t.Error("badges without history")
	}
	_, body = get(t, s, "/page/auth-architecture")
	if strings.Contains(body, `id="freshness"`) {
		t.Error("a freshness section without history")
	}
}
