package freshness

import (
	"strings"
	"testing"
	"time"
)

// The one line an agent is told about a page (issue 18: "cites X, changed
// in 3 commits since this page, last 2026-11-28 'rotate keys'").
func TestReportLine(t *testing.T) {
	day := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	drifted := func(cite string, n int, subject string) Result {
		return Result{Citation: Citation{Path: cite}, Verdict: Drifted, Count: n,
			Commits: []CommitRef{{Short: "abc1234", Subject: subject, Date: day}}}
	}
	lineCite := Result{Citation: Citation{Path: "a/b.go", Start: 5, End: 6}, Verdict: Drifted, Count: 1,
		Commits: []CommitRef{{Subject: "fix", Date: day}}}
	for _, c := range []struct {
		name string
		r    Report
		want string
	}{
		{"fresh", Report{Path: "EchoesVault/pages/a.md", Verdict: Fresh, Citations: []Result{{Citation: Citation{Path: "x"}, Verdict: Fresh}}}, ""},
		{"uncited", Report{Path: "EchoesVault/pages/a.md", Verdict: Uncited}, ""},
		{"moved is not stale", Report{Path: "EchoesVault/pages/a.md", Verdict: Moved, Citations: []Result{{Citation: Citation{Path: "x"}, Verdict: Moved, NewPath: "y"}}}, ""},
		{"three commits", Report{Path: "EchoesVault/pages/auth.md", Verdict: Drifted, Citations: []Result{drifted("internal/auth/token.go", 3, "rotate keys")}},
			"auth.md drifted: cites internal/auth/token.go, changed in 3 commits since this page, last 2026-11-28 'rotate keys'"},
		{"one commit, lines", Report{Path: "EchoesVault/pages/a.md", Verdict: Drifted, Citations: []Result{lineCite}},
			"a.md drifted: cites a/b.go:5-6, changed in 1 commit since this page, last 2026-11-28 'fix'"},
		{"missing first, and more", Report{Path: "EchoesVault/pages/a.md", Verdict: Missing, Citations: []Result{
			drifted("x.go", 2, "s"), {Citation: Citation{Path: "gone.go"}, Verdict: Missing, Note: "deleted in abc1234"},
			{Citation: Citation{Path: "ok.go"}, Verdict: Fresh}, drifted("y.go", 1, "t")}},
			"a.md missing: cites gone.go, deleted in abc1234 (and 2 more citations)"},
		{"one more", Report{Path: "EchoesVault/pages/a.md", Verdict: Drifted, Citations: []Result{drifted("x.go", 2, "s"), drifted("y.go", 1, "t")}},
			"a.md drifted: cites x.go, changed in 2 commits since this page, last 2026-11-28 's' (and 1 more citation)"},
		{"long subject", Report{Path: "EchoesVault/pages/a.md", Verdict: Drifted, Citations: []Result{drifted("x.go", 1, strings.Repeat("s", 80))}},
			"a.md drifted: cites x.go, changed in 1 commit since this page, last 2026-11-28 '" + strings.Repeat("s", 59) + "…'"},
	} {
		if got := c.r.Line(); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// RecentPages: the pages changed most recently in the target's history,
// newest first, each once, only pages the target still has, bounded by n
// and by the commits walked.
func TestRecentPages(t *testing.T) {
	r := newRepo(t)
	for _, n := range []string{"a", "b", "c", "d"} {
		r.write(PagesDir+"/"+n+".md", page(nil, n))
	}
	r.write("src/x.go", "x\n")
	r.commit("four pages")
	r.write(PagesDir+"/b.md", page(nil, "b2"))
	r.commit("b")
	r.write("src/x.go", "y\n")
	r.commit("code")
	r.write(PagesDir+"/d.md", page(nil, "d2"))
	r.write(PagesDir+"/notes/nested.md", "nested\n") // not a page: pages are direct children
	r.commit("d")
	r.git("rm", "-q", PagesDir+"/c.md")
	r.commit("c gone")
	r.write(PagesDir+"/b.md", page(nil, "b3"))
	r.commit("b again")
	head := r.git("rev-parse", "HEAD")
	repo := r.open()
	for _, c := range []struct {
		n, max int
		want   string
	}{
		{10, 0, "b.md d.md a.md"},
		{2, 0, "b.md d.md"},
		{10, 3, "b.md d.md"}, // three commits walked: b again, c gone, d
		{0, 0, ""},
	} {
		got, err := RecentPages(repo, head, c.n, c.max)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("RecentPages(%d, %d) = %v, want %s", c.n, c.max, got, c.want)
		}
	}
}
