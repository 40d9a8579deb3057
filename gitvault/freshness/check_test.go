package freshness

import (
	"strings"
	"testing"
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
