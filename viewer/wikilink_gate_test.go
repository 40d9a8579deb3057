package viewer

import (
	"net/http"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault/gate"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestBacklinksAgreeWithGate (issue 17): the viewer's links, backlinks
// and broken links are the links the gate's wikilink-missing rule reads
// (one scanner, internal/wikilink), on the same pages of a real
// workspace: a [[link]] in a code span, a fenced block or after an
// escaped bracket is no link for either; every other one is a link for
// both, resolved or missing alike.
func TestBacklinksAgreeWithGate(t *testing.T) {
	f := newFixture(t)
	page := func(summary, body string) string {
		return "---\ntype: note\nstack: []\nstatus: active\nsummary: " + summary + "\n---\n\n" + body
	}
	pages := map[string]string{
		"links-hub.md": page("Links of every kind.", "A real link to [[links-real]] and [[links-real|again]].\n\n"+
			"In a code span: `[[links-span]]`, a double one: ``a ` [[links-span2]] b``.\n\n"+
			"```\n[[links-fenced]]\n```\n\n~~~~ text\n[[links-fenced]]\n~~~~\n\n"+
			"An escaped bracket: \\[[links-escaped]].\n\n"+
			"Missing: [[links-nowhere]], and in code `[[links-nowhere-code]]`.\n\n"+
			"| cell | [[links-table\\|alias]] |\n|---|---|\n"),
		"links-real.md":    page("Linked for real.", "Back to [[links-hub]].\n"),
		"links-span.md":    page("Named in a code span only.", "Nothing.\n"),
		"links-span2.md":   page("Named in a double code span only.", "Nothing.\n"),
		"links-fenced.md":  page("Named in fenced code only.", "Nothing.\n"),
		"links-escaped.md": page("Named after an escaped bracket only.", "Nothing.\n"),
		"links-table.md":   page("Linked from a table cell.", "Nothing.\n"),
	}
	for name, text := range pages {
		testenv.WriteFile(t, filepath.Join(f.eng.WS.Pages, name), text)
	}
	s := newServer(t, f, nil)

	// The gate: the missing links of the work tree.
	res, err := gate.Check(f.eng, gate.CheckOptions{Source: gate.CheckWorkTree})
	if err != nil {
		t.Fatal(err)
	}
	gateMissing := map[string][]string{} // page slug → missing targets
	quoted := regexp.MustCompile(`'\[\[([^|\]#]*)`)
	for _, fd := range res.Findings {
		if fd.Rule != "wikilink-missing" || !strings.HasPrefix(fd.Path, "EchoesVault/pages/") {
			continue
		}
		m := quoted.FindStringSubmatch(fd.Message)
		if m == nil {
			t.Fatalf("finding without a link: %+v", fd)
		}
		slug := strings.TrimSuffix(strings.TrimPrefix(fd.Path, "EchoesVault/pages/"), ".md")
		gateMissing[slug] = append(gateMissing[slug], strings.TrimSpace(m[1]))
	}

	// The viewer: every page's backlinks and broken links.
	backlinks := regexp.MustCompile(`<ul class="backlinks">(.*?)</ul>`)
	href := regexp.MustCompile(`href="/page/([^"]+)"`)
	broken := regexp.MustCompile(`<span class="broken">([^<]*)</span>`)
	viewerBack := map[string][]string{}
	for name := range pages {
		slug := strings.TrimSuffix(name, ".md")
		w := s.do(t, req{target: pageHref(slug)})
		if w.Code != http.StatusOK {
			t.Fatalf("%s: status %d", slug, w.Code)
		}
		body := w.Body.String()
		if m := backlinks.FindStringSubmatch(body); m != nil {
			for _, h := range href.FindAllStringSubmatch(m[1], -1) {
				viewerBack[slug] = append(viewerBack[slug], h[1])
			}
		}
		var vb []string
		for _, b := range broken.FindAllStringSubmatch(body, -1) {
			vb = append(vb, b[1])
		}
		gm := dedupe(gateMissing[slug])
		if strings.Join(vb, ",") != strings.Join(gm, ",") {
			t.Errorf("%s: the viewer's broken links %q, the gate's wikilink-missing %q", slug, vb, gm)
		}
	}
	want := map[string][]string{"links-hub": {"links-real"}, "links-real": {"links-hub"}, "links-table": {"links-hub"}}
	for name := range pages {
		slug := strings.TrimSuffix(name, ".md")
		got, w := viewerBack[slug], want[slug]
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(w, ",") {
			t.Errorf("%s: backlinks %q, want %q (links in code or after an escaped bracket are not links)", slug, got, w)
		}
	}
	if got := strings.Join(gateMissing["links-hub"], ","); got != "links-nowhere" {
		t.Errorf("the gate's missing links of links-hub: %q", got)
	}
}

func dedupe(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
