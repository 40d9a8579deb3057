package freshness

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSince is the table of the review rule (since.go): each case builds a
// base with one page citing code, then a range of commits, and names the
// citations Since must report (page path "cite", in order) and the
// subjects of the range commits listed for them.
func TestSince(t *testing.T) {
	const other = "EchoesVault/pages/other.md"
	type step struct {
		write map[string]string
		rm    []string
		mv    [2]string
		msg   string
	}
	cases := []struct {
		name    string
		sources []string
		body    string
		before  []step // committed after the page, before the base
		steps   []step // the range base..head
		want    []string
		commits []string // subjects listed for the first reported citation
	}{
		{name: "file changed", sources: []string{"src/a.go"},
			steps: []step{{write: map[string]string{"src/a.go": lines(10, "A")}, msg: "change a"}},
			want:  []string{pg + " src/a.go"}, commits: []string{"change a"}},
		{name: "unrelated change", sources: []string{"src/a.go"},
			steps: []step{{write: map[string]string{"src/b.go": lines(3, "B")}, msg: "change b"}}},
		{name: "page updated in the range", sources: []string{"src/a.go"},
			steps: []step{{write: map[string]string{"src/a.go": lines(10, "A")}, msg: "change a"},
				{write: map[string]string{pg: page([]string{"src/a.go"}, "Updated.")}, msg: "update page"}}},
		{name: "page renamed in the range", sources: []string{"src/a.go"},
			steps: []step{{write: map[string]string{"src/a.go": lines(10, "A")}, msg: "change a"},
				{mv: [2]string{pg, "EchoesVault/pages/auth2.md"}, msg: "rename page"}}},
		{name: "lines above the citation", sources: []string{"src/a.go:5-6"},
			steps: []step{{write: map[string]string{"src/a.go": "new\n" + lines(10, "a")}, msg: "insert above"}}},
		{name: "cited lines changed", sources: []string{"src/a.go:5-6"},
			steps: []step{{write: map[string]string{"src/a.go": strings.Replace(lines(10, "a"), "a line 6\n", "changed\n", 1)}, msg: "edit line 6"}},
			want:  []string{pg + " src/a.go:5-6"}, commits: []string{"edit line 6"}},
		{name: "only range commits listed", sources: []string{"src/a.go"},
			before: []step{{write: map[string]string{"src/a.go": lines(11, "a")}, msg: "before the range"}},
			steps: []step{{write: map[string]string{"src/a.go": lines(12, "a")}, msg: "first"},
				{write: map[string]string{"src/a.go": lines(13, "a")}, msg: "second"}},
			want: []string{pg + " src/a.go"}, commits: []string{"second", "first"}},
		{name: "changed and reverted", sources: []string{"src/a.go"},
			steps: []step{{write: map[string]string{"src/a.go": lines(12, "a")}, msg: "change"},
				{write: map[string]string{"src/a.go": lines(10, "a")}, msg: "revert"}}},
		{name: "deleted", sources: []string{"src/a.go"},
			steps: []step{{rm: []string{"src/a.go"}, msg: "drop a"}},
			want:  []string{pg + " src/a.go"}},
		{name: "renamed intact is moved, not stale", sources: []string{"src/a.go"},
			steps: []step{{mv: [2]string{"src/a.go", "src/c.go"}, msg: "rename a"}}},
		{name: "directory citation", sources: []string{"src/"},
			steps: []step{{write: map[string]string{"src/new.go": "x\n"}, msg: "add to src"}},
			want:  []string{pg + " src"}, commits: []string{"add to src"}},
		{name: "implicit body citation", body: "Read `src/a.go` and [b](../../src/b.go).",
			steps: []step{{write: map[string]string{"src/b.go": "b2\n"}, msg: "change b"}},
			want:  []string{pg + " src/b.go"}},
		{name: "a cited path the range adds", sources: []string{"src/new.go"},
			steps: []step{{write: map[string]string{"src/new.go": "n\n"}, msg: "add new"}}},
		{name: "cited lines past the end at base", sources: []string{"src/a.go:50-60"},
			steps: []step{{write: map[string]string{"src/a.go": lines(12, "a")}, msg: "append"}}},
		{name: "cited lines deleted", sources: []string{"src/a.go:9-10"},
			steps: []step{{write: map[string]string{"src/a.go": lines(8, "a")}, msg: "truncate"}},
			want:  []string{pg + " src/a.go:9-10"}, commits: []string{"truncate"}},
		{name: "prose is no citation", body: "The file src/a.go is mentioned in prose only.",
			steps: []step{{write: map[string]string{"src/a.go": lines(12, "a")}, msg: "change a"}}},
		{name: "a citation added later names nothing at the base", body: "Nothing cited.",
			steps: []step{{write: map[string]string{"src/a.go": lines(12, "a")}, msg: "change a"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("src/a.go", lines(10, "a"))
			r.write("src/b.go", "b\n")
			r.commit("code")
			r.write(pg, page(tc.sources, tc.body))
			r.write(other, page([]string{"src/b.go"}, "Other."))
			r.commit("pages")
			apply := func(steps []step) {
				for _, s := range steps {
					for p, c := range s.write {
						r.write(p, c)
					}
					for _, p := range s.rm {
						r.git("rm", "-q", p)
					}
					if s.mv[0] != "" {
						r.git("mv", s.mv[0], s.mv[1])
					}
					r.commit(s.msg)
				}
			}
			apply(tc.before)
			base := r.git("rev-parse", "HEAD")
			apply(tc.steps)
			head := r.git("rev-parse", "HEAD")
			got, err := Since(r.open(), base, head, SinceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range got {
				names = append(names, s.Page+" "+s.Citation.String())
			}
			want := tc.want
			// other.md cites src/b.go: reported whenever the range changed it.
			for _, s := range tc.steps {
				if _, ok := s.write["src/b.go"]; ok {
					want = append(slices.Clone(want), other+" src/b.go")
					break
				}
			}
			if !slices.Equal(names, want) {
				t.Fatalf("reported %q, want %q", names, want)
			}
			if tc.commits != nil {
				var subj []string
				for _, c := range got[0].Commits {
					subj = append(subj, c.Subject)
				}
				if !slices.Equal(subj, tc.commits) || got[0].Count != len(tc.commits) {
					t.Fatalf("commits %q (count %d), want %q", subj, got[0].Count, tc.commits)
				}
			}
		})
	}
}

// TestSinceSameCommit: an empty range reports nothing and reads nothing.
func TestSinceSameCommit(t *testing.T) {
	r := newRepo(t)
	r.write("src/a.go", "a\n")
	r.write(pg, page([]string{"src/a.go"}, ""))
	h := r.commit("all")
	got, err := Since(r.open(), h, h, SinceOptions{})
	if err != nil || len(got) != 0 {
		t.Fatalf("%v %v", got, err)
	}
}

// TestTouches is the cheap filter's table: it must keep every page that
// can be stale (a false negative would hide a memory-stale finding).
func TestTouches(t *testing.T) {
	changed := map[string]bool{"src": true, "src/a.go": true, "docs": true, "docs/x.md": true}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{page([]string{"src/a.go:3"}, ""), true},
		{page([]string{"src/"}, ""), true},
		{page([]string{"src/b.go"}, ""), false},
		{page(nil, "See `src/a.go`."), true},
		{page(nil, "See [x](../../docs/x.md)."), true},
		{page(nil, "See [x](docs/x.md)."), true},
		{page(nil, "src/a.go in prose"), false},
		{page(nil, "```\nsrc/a.go\n```"), false},
	} {
		if got := Touches(Doc{Path: pg, Text: tc.text}, changed); got != tc.want {
			t.Errorf("Touches(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestStaleMessage(t *testing.T) {
	d := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var commits []CommitRef
	for _, s := range []string{"one", "two", "three", "four"} {
		commits = append(commits, CommitRef{Short: s[:3] + "0000", Subject: s, Date: d})
	}
	drift := Stale{Page: "EchoesVault/pages/auth.md", Result: Result{
		Citation: Citation{Path: "a.go", Start: 3, End: 4}, Verdict: Drifted, Commits: commits, Count: 5}}
	if got, want := drift.Message(), "cites a.go:3-4, which this change modified in 5 commits (one0000 'one', two0000 'two', thr0000 'three', and 2 more), and the page was not updated: check it against the code, then update it or run git echoes confirm auth.md"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	gone := Stale{Page: "EchoesVault/pages/auth.md", Result: Result{
		Citation: Citation{Path: "a.go"}, Verdict: Missing, Note: "deleted in abc1234"}}
	if got := gone.Message(); !strings.HasPrefix(got, "cites a.go, which this change deleted (abc1234), and the page") {
		t.Fatal(got)
	}
}
