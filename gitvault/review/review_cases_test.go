package review

import (
	"errors"
	"fmt"
	"github.com/git-echoes/git-echoes/gitvault"
	"path/filepath"
	"strings"
	"testing"
)

// logCommits runs Log and returns its commit ids.
func logCommits(t *testing.T, e *gitvault.Engine, opt LogOptions) []string {
	t.Helper()
	res, err := Log(e, opt)
	if err != nil {
		t.Fatalf("Log(%+v): %v", opt, err)
	}
	var ids []string
	for _, en := range res.Entries {
		ids = append(ids, en.Commit)
	}
	return ids
}

func gitLog(rr *reviewRepo, dir string, follow bool, path string) []string {
	args := []string{"-C", dir, "log", "--format=%H"}
	if follow {
		args = append(args, "--follow")
	}
	return strings.Fields(rr.git(append(args, "--", path)...))
}

// A rename on a branch, an edit of the same page on main, and the merge
// that brings both together: log --follow from the merge crosses it as git
// log --follow does, and diff of the merge against its first parent shows
// the rename.
func TestReviewRenameAcrossMerge(t *testing.T) {
	rr := newReviewRepo(t, 7)
	lines := []string{"one", "two", "three", "four", "five", "six", "seven", "eight"}
	rr.write("EchoesVault/pages/p.md", reviewPage("p", "active", lines))
	rr.commit("add p")
	rr.git("checkout", "-q", "-b", "side")
	rr.git("mv", "EchoesVault/pages/p.md", "EchoesVault/pages/q.md")
	rr.commit("rename p to q")
	rr.git("checkout", "-q", "main")
	edited := append([]string{}, lines...)
	edited[7] = "eight, edited on main"
	rr.write("EchoesVault/pages/p.md", reviewPage("p", "deprecated", edited))
	rr.commit("edit p on main")
	rr.git("merge", "-q", "--no-edit", "side")
	if got := rr.read("EchoesVault/pages/q.md"); !strings.Contains(got, "edited on main") {
		t.Fatalf("the merge did not carry the edit across the rename:\n%s", got)
	}
	for _, follow := range []bool{false, true} {
		want := gitLog(rr, rr.dir, follow, "EchoesVault/pages/q.md")
		got := logCommits(t, rr.e, LogOptions{Target: "q.md", Follow: follow})
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("follow=%v:\ngit:  %v\nours: %v", follow, want, got)
		}
		if follow {
			res, _ := Log(rr.e, LogOptions{Target: "q.md", Follow: true})
			if len(res.Entries) < 2 || res.Entries[0].Status != "R" || res.Entries[len(res.Entries)-1].Path != "EchoesVault/pages/p.md" {
				t.Errorf("--follow did not cross the rename: %+v", res.Entries)
			}
		}
	}
	res, err := Diff(rr.e, RevRange{A: "HEAD^1", B: "HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	if want, got := rr.nameStatus("HEAD^1", "HEAD"), ourNameStatus(res); strings.Join(want, "|") != strings.Join(got, "|") {
		t.Fatalf("merge diff: git %v, ours %v", want, got)
	}
	if len(res.Pages) != 1 || res.Pages[0].Change != "renamed" || res.Pages[0].Deprecated() {
		t.Fatalf("merge diff pages: %+v", res.Pages)
	}
	// Against the side branch, the merge brought the deprecation.
	res, err = Diff(rr.e, RevRange{A: "side", B: "HEAD"})
	if err != nil || len(res.Pages) != 1 || !res.Pages[0].Deprecated() {
		t.Fatalf("side..HEAD: %+v %v", res, err)
	}
	// side...main: what main did since the branch point, ignoring side.
	res, err = Diff(rr.e, RevRange{A: "side", B: "main", MergeBase: true})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(rr.git("diff", "--name-status", "-M", "side...main", "--", "EchoesVault", ".ecc/memory"))
	got := strings.Fields(strings.Join(ourNameStatus(res), " "))
	if strings.Join(want, "|") != strings.Join(got, "|") {
		t.Fatalf("side...main: git %v, ours %v", want, got)
	}
}

// The root commit: a page added there is logged as added, and a diff from
// the root works; a revision before it fails closed.
func TestReviewRootCommit(t *testing.T) {
	rr := newReviewRepo(t, 8)
	root := strings.TrimSpace(rr.git("rev-list", "--max-parents=0", "HEAD"))
	rr.write("EchoesVault/pages/a.md", reviewPage("a", "active", []string{"x"}))
	rr.commit("a")
	res, err := Diff(rr.e, RevRange{A: root, B: "HEAD"})
	if err != nil || len(res.Pages) != 1 || res.Pages[0].Change != "added" {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := Diff(rr.e, RevRange{A: root + "~1", B: "HEAD"}); err == nil || !strings.Contains(err.Error(), "Unknown revision") {
		t.Fatalf("before the root: %v", err)
	}
	// A page that exists in the root commit: the root is its first entry.
	ids := logCommits(t, rr.e, LogOptions{Target: "EchoesVault/.echoes-vault.json"})
	if len(ids) != 1 || ids[0] != root {
		t.Fatalf("marker history %v, want the root %s", ids, root)
	}
}

// A shallow clone: the merge base beyond the fetched history, or a
// revision that was not fetched, fails closed naming the shallow clone;
// log stops where the clone's history stops, as git log does.
func TestReviewShallowClone(t *testing.T) {
	rr := newReviewRepo(t, 9)
	for i := 0; i < 3; i++ {
		rr.write("EchoesVault/pages/a.md", reviewPage("a", "active", []string{strings.Repeat("v", i+1)}))
		rr.commit("a")
	}
	rr.git("branch", "other", "HEAD~2")
	shallow := filepath.Join(t.TempDir(), "shallow")
	// --no-local: a local path through the transport, so --depth applies.
	rr.git("clone", "-q", "--no-local", "--depth", "1", "--no-single-branch", rr.dir, shallow)
	e, err := gitvault.Open(gitvault.Options{Workspace: shallow})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Diff(e, RevRange{A: "origin/other", B: "HEAD", MergeBase: true})
	if err == nil || !strings.Contains(err.Error(), "shallow clone") {
		t.Fatalf("merge base in a shallow clone: %v", err)
	}
	if _, err := Diff(e, RevRange{A: "HEAD~1", B: "HEAD"}); err == nil || !strings.Contains(err.Error(), "shallow clone") {
		t.Fatalf("missing parent in a shallow clone: %v", err)
	}
	want := gitLog(rr, shallow, false, "EchoesVault/pages/a.md")
	if got := logCommits(t, e, LogOptions{Target: "a.md"}); strings.Join(got, " ") != strings.Join(want, " ") || len(got) != 1 {
		t.Fatalf("shallow log: git %v, ours %v", want, got)
	}
}

// A repository go-git cannot read faithfully is refused, as check refuses
// it; bad targets and unknown revisions fail with expected errors.
func TestReviewRefusals(t *testing.T) {
	rr := newReviewRepo(t, 10)
	for _, target := range []string{"../x.md", "/etc/passwd", "src/a.go", ".hidden", "mem_nope", "mem_valid_id_here", "a\x00b"} {
		if _, err := Log(rr.e, LogOptions{Target: target}); err == nil {
			t.Errorf("log %q accepted", target)
		} else if ge := (*gitvault.Error)(nil); !errors.As(err, &ge) {
			t.Errorf("log %q: error of type %T", target, err)
		}
	}
	if _, err := Log(rr.e, LogOptions{Target: "a.md", Rev: "nope"}); err == nil || !strings.Contains(err.Error(), "Unknown revision: nope") {
		t.Errorf("unknown --rev: %v", err)
	}
	if _, err := Diff(rr.e, RevRange{Upstream: true}); err == nil || !strings.Contains(err.Error(), "No upstream") {
		t.Errorf("no upstream: %v", err)
	}
	rr.git("config", "core.repositoryformatversion", "1")
	rr.git("config", "extensions.somethingNew", "true")
	for name, call := range map[string]func() error{
		"diff":   func() error { _, err := Diff(rr.e, RevRange{A: "HEAD", B: "HEAD"}); return err },
		"log":    func() error { _, err := Log(rr.e, LogOptions{Target: "a.md"}); return err },
		"search": func() error { _, err := SearchAt(rr.e, "HEAD", "x", 10); return err },
		"start":  func() error { _, err := StartAt(rr.e, "HEAD", 3); return err },
	} {
		if err := call(); err == nil || !strings.Contains(err.Error(), "Cannot read the Git repository") {
			t.Errorf("%s on an unsupported repository: %v", name, err)
		}
	}
}

// The Markdown stays within its limit and counts what it left out; page
// text cannot inject HTML, mentions or table cells.
func TestDiffMarkdownBounded(t *testing.T) {
	res := &DiffResult{From: DiffEnd{Label: "a"}, To: DiffEnd{Label: "b"}}
	for i := 0; i < 2000; i++ {
		res.Pages = append(res.Pages, PageChange{Change: "added", Name: fmt.Sprintf("p%04d.md", i),
			After: &PageMeta{Summary: "<script>x</script> | @team **bold** " + strings.Repeat("y", 100), Status: "active"}})
	}
	for _, limit := range []int{3000, 20000, MarkdownLimit} {
		md := res.Markdown(limit)
		if len(md) > limit {
			t.Fatalf("limit %d: %d bytes", limit, len(md))
		}
		rows := strings.Count(md, "\n| <code>p")
		details := strings.Count(md, "<details>")
		var moreRows, moreDetails int
		for _, l := range strings.Split(md, "\n") {
			var n int
			var what string
			if _, err := fmt.Sscanf(l, "… %d more page %s", &n, &what); err == nil {
				switch what {
				case "rows":
					moreRows = n
				case "details":
					moreDetails = n
				}
			}
		}
		if rows+moreRows != 2000 || details+moreDetails != 2000 {
			t.Fatalf("limit %d: %d rows + %d more, %d details + %d more", limit, rows, moreRows, details, moreDetails)
		}
		if strings.Contains(md, "<script>") || strings.Contains(md, "@team") || strings.Contains(md, "| @") {
			t.Fatalf("unescaped page text:\n%s", md[:500])
		}
	}
}
