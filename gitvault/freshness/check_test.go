package freshness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

const pg = "EchoesVault/pages/auth.md"

func TestVerdictsFlow(t *testing.T) {
	r := newRepo(t)
	r.write("internal/auth/token.go", lines(20, "token"))
	r.write("internal/auth/keys.go", lines(5, "keys"))
	r.write("internal/old.go", lines(5, "old"))
	r.write("docs/x.md", "x\n")
	r.commit("code")
	r.write(pg, page([]string{"internal/auth/token.go:10-12", "internal/old.go", "/etc/passwd", "../x", `""`},
		"Tokens are in `internal/auth/keys.go` and [docs](../../docs/x.md); `not/a/path.go` is prose."))
	r.commit("page")

	rep := r.check(pg)[0]
	if rep.Verdict != Fresh || len(rep.Citations) != 4 {
		t.Fatalf("fresh page: %+v", rep)
	}
	if len(rep.Invalid) != 3 {
		t.Fatalf("invalid entries: %+v", rep.Invalid)
	}
	if cite(t, rep, "docs/x.md").From != "body" {
		t.Fatal("link resolved relative to the page")
	}

	// An edit above the cited lines shifts them: fresh, new range.
	tok := "new first line\n" + lines(20, "token")
	r.write("internal/auth/token.go", tok)
	r.commit("insert above")
	rep = r.check(pg)[0]
	c := cite(t, rep, "internal/auth/token.go")
	if c.Verdict != Fresh || c.NewStart != 11 || c.NewEnd != 13 {
		t.Fatalf("shifted lines: %+v", c)
	}
	// Rename keys.go with content intact: moved.
	r.git("mv", "internal/auth/keys.go", "internal/auth/signing.go")
	r.commit("rename keys")
	rep = r.check(pg)[0]
	if c := cite(t, rep, "internal/auth/keys.go"); c.Verdict != Moved || c.NewPath != "internal/auth/signing.go" {
		t.Fatalf("moved: %+v", c)
	}
	// Delete old.go: missing.
	r.git("rm", "-q", "internal/old.go")
	r.commit("drop old")
	rep = r.check(pg)[0]
	if c := cite(t, rep, "internal/old.go"); c.Verdict != Missing {
		t.Fatalf("missing: %+v", c)
	}
	if rep.Verdict != Missing {
		t.Fatalf("page verdict is the worst: %v", rep.Verdict)
	}
	// Change a cited line: drifted, with the commit.
	r.write("internal/auth/token.go", strings.Replace(tok, "token line 11\n", "rotated\n", 1))
	rot := r.commit("rotate keys")
	rep = r.check(pg)[0]
	c = cite(t, rep, "internal/auth/token.go")
	if c.Verdict != Drifted || c.Count != 1 || c.Commits[0].Hash != rot || c.Commits[0].Subject != "rotate keys" || c.Commits[0].Removed != 1 {
		t.Fatalf("drifted lines: %+v", c)
	}
	// Editing the page anchors it after all of that.
	r.write(pg, r.read(pg)+"\nmore\n")
	r.commit("page edit")
	rep = r.check(pg)[0]
	if rep.Anchor.Commit != r.git("rev-parse", "HEAD") {
		t.Fatalf("anchor: %+v", rep.Anchor)
	}
	if cite(t, rep, "internal/auth/token.go").Verdict != Fresh {
		t.Fatalf("after edit: %+v", rep.Citations[0])
	}
	if len(rep.Citations) != 3 { // keys.go is no longer tracked at the anchor, old.go missing (explicit)
		t.Fatalf("citations after edit: %+v", rep.Citations)
	}
}

func TestUncitedAndWholeFile(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "a\n")
	r.write(pg, page(nil, "No code here, only `prose`."))
	r.commit("one")
	if rep := r.check(pg)[0]; rep.Verdict != Uncited {
		t.Fatalf("uncited: %+v", rep)
	}
	r.write("EchoesVault/pages/b.md", page([]string{"a.go"}, ""))
	r.commit("b")
	r.write("a.go", "a\nb\n")
	h := r.commit("grow a")
	rep := r.check("EchoesVault/pages/b.md")[0]
	if rep.Verdict != Drifted || rep.Citations[0].Commits[0].Hash != h || rep.Citations[0].Commits[0].Added != 1 {
		t.Fatalf("drifted file: %+v", rep)
	}
}

func cite(t *testing.T, rep Report, path string) Result {
	t.Helper()
	for _, c := range rep.Citations {
		if c.Path == path {
			return c
		}
	}
	t.Fatalf("%s does not cite %s: %+v", rep.Path, path, rep.Citations)
	return Result{}
}

func TestAnchors(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", lines(10, "a"))
	c1 := r.commit("code")
	r.write(pg, page([]string{"a.go:2-3"}, ""))
	r.commit("page")
	// A pure rename of the page does not move its anchor.
	r.git("mv", pg, "EchoesVault/pages/auth2.md")
	r.commit("rename page")
	r.write("a.go", strings.Replace(lines(10, "a"), "a line 2\n", "changed\n", 1))
	c4 := r.commit("change a")
	rep := r.check("EchoesVault/pages/auth2.md")[0]
	if rep.Verdict != Drifted || rep.Anchor.Commit == r.git("rev-parse", "HEAD~1") {
		t.Fatalf("a renamed page keeps its anchor: %+v", rep)
	}

	// confirm's edit, committed: the anchor is the verified commit, so a
	// code change committed with the confirmation still counts.
	text := r.read("EchoesVault/pages/auth2.md")
	confirmed, err := SetVerified(text, c4, "2026-01-01T00:00:05Z")
	if err != nil {
		t.Fatal(err)
	}
	r.write("EchoesVault/pages/auth2.md", confirmed)
	// Uncommitted: anchored at the work tree, fresh.
	reps, err := Check(r.open(), c4, []Doc{{Path: "EchoesVault/pages/auth2.md", Text: confirmed, WorkTree: true}})
	if err != nil {
		t.Fatal(err)
	}
	if reps[0].Verdict != Fresh || !reps[0].Anchor.WorkTree {
		t.Fatalf("work tree anchor: %+v", reps[0])
	}
	r.commit("confirm")
	rep = r.check("EchoesVault/pages/auth2.md")[0]
	if rep.Verdict != Fresh || !rep.Anchor.Verified || rep.Anchor.Commit != c4 {
		t.Fatalf("verified anchor: %+v", rep.Anchor)
	}
	r.write("a.go", strings.Replace(r.read("a.go"), "a line 3\n", "changed too\n", 1))
	r.write("EchoesVault/pages/auth2.md", strings.Replace(confirmed, c4, c1, 1))
	r.commit("page says verified at c1, with a code change")
	// The page's last change touched only verified:, naming c1 (an
	// ancestor): drift is counted from c1, so both code changes count.
	rep = r.check("EchoesVault/pages/auth2.md")[0]
	if rep.Anchor.Commit != c1 || rep.Verdict != Drifted || rep.Citations[0].Count != 2 {
		t.Fatalf("verified at an older commit: %+v", rep)
	}
	// Any other edit of the page anchors it at the edit.
	r.write("EchoesVault/pages/auth2.md", r.read("EchoesVault/pages/auth2.md")+"\nnew text\n")
	edit := r.commit("edit page")
	if rep = r.check("EchoesVault/pages/auth2.md")[0]; rep.Anchor.Commit != edit || rep.Anchor.Verified {
		t.Fatalf("edited page: %+v", rep.Anchor)
	}
}

func TestMemoryAnchor(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", lines(3, "a"))
	c1 := r.commit("one") // 00:00:01
	r.write("a.go", lines(4, "a"))
	c2 := r.commit("two") // 00:00:02
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	docs := []Doc{
		{Path: ".ecc/memory/team/m1.md", Memory: true, Text: "Look at `a.go` and `sources:`.", UpdatedAt: at("2026-01-01T00:00:01Z")},
		{Path: ".ecc/memory/team/m2.md", Memory: true, Text: "Look at `a.go`.", UpdatedAt: at("2026-01-01T00:00:03Z")},
		{Path: ".ecc/memory/team/m3.md", Memory: true, Text: "Nothing cited.", UpdatedAt: at("2025-01-01T00:00:00Z")},
	}
	reps, err := Check(r.open(), c2, docs)
	if err != nil {
		t.Fatal(err)
	}
	if reps[0].Anchor.Commit != c1 || reps[0].Verdict != Drifted || len(reps[0].Citations) != 1 {
		t.Fatalf("memory at c1: %+v", reps[0])
	}
	if reps[1].Anchor.Commit != c2 || reps[1].Verdict != Fresh {
		t.Fatalf("memory at c2: %+v", reps[1])
	}
	if reps[2].Anchor.Commit != c1 || reps[2].Verdict != Uncited {
		t.Fatalf("memory older than the history: %+v", reps[2])
	}
}

// In a shallow clone whose history stops after the page's last change,
// the anchor is the shallow boundary and the report says so.
func TestShallowClone(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", lines(5, "a"))
	r.write("b.go", lines(5, "b"))
	r.commit("code")
	r.write(pg, page([]string{"a.go", "b.go"}, ""))
	r.commit("page")
	r.write("a.go", lines(6, "a"))
	r.commit("a before the boundary")
	for i := 0; i < 3; i++ {
		r.write("c.go", lines(i+1, "c"))
		r.commit("c")
	}
	r.write("b.go", lines(6, "b"))
	r.commit("b after the boundary")
	clone := filepath.Join(t.TempDir(), "clone")
	// --no-local, not a file:// URL, makes the local clone shallow: a
	// Windows path makes no URL (the wine64 run).
	r.git("clone", "-q", "--no-local", "--depth", "3", r.dir, clone)
	c := &repoT{t: t, s: r.s, dir: clone, n: r.n}
	rep := c.check(pg)[0]
	if !rep.Anchor.Shallow || rep.Anchor.Commit != c.git("rev-parse", "HEAD~2") {
		t.Fatalf("shallow anchor: %+v", rep.Anchor)
	}
	if cite(t, rep, "a.go").Verdict != Fresh || cite(t, rep, "b.go").Verdict != Drifted {
		t.Fatalf("shallow verdicts: %+v", rep.Citations)
	}
}

func TestCheckCached(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", lines(5, "a"))
	r.write(pg, page([]string{"a.go:2"}, ""))
	r.commit("one")
	r.write("a.go", lines(6, "a"))
	head := r.commit("two")
	docs := []Doc{{Path: pg, Text: r.read(pg)}}
	dir := filepath.Join(t.TempDir(), "stale")
	render := func(reps []Report) string { return pyjson.Compact(JSON(head, reps)) }
	want, err := Check(r.open(), head, docs)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // cold, then from the cache
		got, werr, err := CheckCached(r.open(), head, docs, dir)
		if err != nil || werr != nil {
			t.Fatal(err, werr)
		}
		if render(got) != render(want) {
			t.Fatalf("run %d: %s\nwant %s", i, render(got), render(want))
		}
	}
	// The cache is used: a doctored entry is what comes back ...
	path := filepath.Join(dir, "verdicts")
	cf, err := decodeCache([]byte(r.readAbs(path)))
	if err != nil || len(cf.Reports) != 1 {
		t.Fatalf("cache file: %v, %d reports", err, len(cf.Reports))
	}
	for k, rep := range cf.Reports {
		rep.Verdict = Missing
		cf.Reports[k] = rep
	}
	os.WriteFile(path, encodeCache(&cf), 0o644)
	got, _, _ := CheckCached(r.open(), head, docs, dir)
	if got[0].Verdict != Missing {
		t.Fatalf("cache not read: %+v", got[0])
	}
	// ... another text is another key, and a damaged file is ignored.
	docs[0].Text += "\nmore\n"
	if got, _, _ = CheckCached(r.open(), head, docs, dir); got[0].Verdict != Fresh {
		t.Fatalf("new text: %+v", got[0])
	}
	os.WriteFile(path, []byte("{not a cache file"), 0o644)
	docs[0].Text = r.read(pg)
	if got, werr, err := CheckCached(r.open(), head, docs, dir); err != nil || werr != nil || render(got) != render(want) {
		t.Fatalf("damaged cache: %v %v %s", err, werr, render(got))
	}
}
