package viewer

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// addBulkPages writes n more pages (bulk-000 ...), every third deprecated
// and linking to the one before it.
func addBulkPages(t testing.TB, f *fixture, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		status, body := "active", "A bulk page.\n"
		if i%3 == 2 {
			status, body = "deprecated", fmt.Sprintf("Replaced by [[bulk-%03d]].\n", i-1)
		}
		testenv.WriteFile(t, filepath.Join(f.eng.WS.Pages, fmt.Sprintf("bulk-%03d.md", i)),
			fmt.Sprintf("---\ntype: bulk\nstack: [go]\nstatus: %s\nsummary: Bulk page %d.\n---\n\n%s", status, i, body))
	}
}

var rowSlug = regexp.MustCompile(`<tr[^>]*>\s*<td><a href="/page/([^"]+)">`)

func rowSlugs(body string) []string {
	var out []string
	for _, m := range rowSlug.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestPagesPagination (issue 19): the pages index shows one screen of
// pageSize rows with the count, page links that keep the filters, and a
// stable order: the screens together are the listing, in order, each
// page once.
func TestPagesPagination(t *testing.T) {
	f := newFixture(t)
	addBulkPages(t, f, 250)
	s := newServer(t, f, nil)
	names, err := f.eng.BrowsePageNames()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range names {
		want = append(want, gitvault.PageSlug(n))
	}
	if len(want) != 254 {
		t.Fatalf("%d pages", len(want))
	}

	code, body := get(t, s, "/pages")
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	mustContain(t, body, "254 of 254 pages.", `<span id="shown">1–100</span>, screen 1 of 3`,
		`<a rel="next" href="/pages?page=2">`, `<a aria-current="true" href="/pages">1</a>`, `href="/pages?page=3">3</a>`)
	if strings.Contains(body, `rel="prev"`) {
		t.Error("the first screen links to a previous one")
	}
	var all []string
	for p := 1; p <= 3; p++ {
		target := "/pages"
		if p > 1 {
			target += fmt.Sprintf("?page=%d", p)
		}
		_, body := get(t, s, target)
		rows := rowSlugs(body)
		wantRows := min(100, 254-(p-1)*100)
		if len(rows) != wantRows {
			t.Errorf("screen %d: %d rows, want %d", p, len(rows), wantRows)
		}
		all = append(all, rows...)
		// Asking twice gives the same screen.
		if _, again := get(t, s, target); strings.Join(rowSlugs(again), ",") != strings.Join(rows, ",") {
			t.Errorf("screen %d changed between two requests", p)
		}
	}
	if strings.Join(all, ",") != strings.Join(want, ",") {
		t.Errorf("the screens are not the listing in order:\n got %v\nwant %v", all, want)
	}
	_, body = get(t, s, "/pages?page=3")
	mustContain(t, body, `<span id="shown">201–254</span>, screen 3 of 3`, `<a rel="prev" href="/pages?page=2">`)
	if strings.Contains(body, `rel="next"`) {
		t.Error("the last screen links to a next one")
	}
	// Past the end: the last screen.
	_, body = get(t, s, "/pages?page=99")
	mustContain(t, body, `<span id="shown">201–254</span>, screen 3 of 3`)
	for _, bad := range []string{"0", "-1", "two", "1.5"} {
		if code, _ := get(t, s, "/pages?page="+bad); code != http.StatusBadRequest {
			t.Errorf("page=%s: status %d, want 400", bad, code)
		}
	}

	// Filters: the count is of the matching pages, the links keep them.
	_, body = get(t, s, "/pages?status=deprecated")
	mustContain(t, body, "84 of 254 pages.", `<span id="shown">1–84</span>`, "bulk-002", `class="replacement" href="/page/bulk-001"`)
	if strings.Contains(body, `class="pager"`) {
		t.Error("one screen of results has a pager")
	}
	_, body = get(t, s, "/pages?type=bulk&page=2")
	mustContain(t, body, "250 of 254 pages.", `<span id="shown">101–200</span>, screen 2 of 3`,
		`href="/pages?page=3&amp;type=bulk"`, `href="/pages?type=bulk"`)
	if rows := rowSlugs(body); len(rows) != 100 || rows[0] != "bulk-100" {
		t.Errorf("type=bulk screen 2 starts %v", rows[:min(3, len(rows))])
	}
}

// TestCatalogSeesChanges: what the views show is what is on disk when
// the request began: an edited, a created and a deleted page are seen by
// the next request (the catalog revalidates every stamp and the listing).
func TestCatalogSeesChanges(t *testing.T) {
	f := newFixture(t)
	s := newServer(t, f, nil)
	_, body := get(t, s, "/pages")
	mustContain(t, body, "4 of 4 pages.", "Session token format.")
	_, body = get(t, s, "/page/auth-architecture")
	mustContain(t, body, "Backlinks (2)")

	p := filepath.Join(f.eng.WS.Pages, "session-tokens.md")
	testenv.WriteFile(t, p, strings.Replace(fixturePages["session-tokens.md"], "Session token format.", "Session token layout.", 1))
	testenv.WriteFile(t, filepath.Join(f.eng.WS.Pages, "new-page.md"),
		"---\ntype: note\nstack: []\nstatus: active\nsummary: Just written.\n---\n\nSee [[auth-architecture]].\n")
	if err := os.Remove(filepath.Join(f.eng.WS.Pages, "old-auth.md")); err != nil {
		t.Fatal(err)
	}
	_, body = get(t, s, "/pages")
	mustContain(t, body, "4 of 4 pages.", "Session token layout.", "Just written.")
	if strings.Contains(body, "old-auth") || strings.Contains(body, "Session token format.") {
		t.Error("the pages index shows what is no longer on disk")
	}
	_, body = get(t, s, "/page/auth-architecture")
	mustContain(t, body, "Backlinks (2)", `href="/page/new-page"`)
	if strings.Contains(body, `href="/page/old-auth"`) {
		t.Error("a deleted page is still a backlink")
	}
	if code, _ := get(t, s, "/page/old-auth"); code != http.StatusNotFound {
		t.Errorf("a deleted page answers %d", code)
	}
}
