package hooks

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/freshness"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// addStale keeps the budget: the head line and whole lines while they
// fit, the rest counted in a last line; nothing when not even the head
// and one line fit, and the context unchanged when there is no line.
func TestAddStale(t *testing.T) {
	ctx := "C"
	l1, l2, l3 := "- a.md drifted: one", "- b.md missing: two", "- c.md drifted: cites src/c.go, changed in 4 commits since this page"
	head := ctx + "\n\n" + staleHead
	all := head + "\n" + l1 + "\n" + l2 + "\n" + l3
	if got := addStale(ctx, nil, 10000); got != ctx {
		t.Errorf("no lines: %q", got)
	}
	if got := addStale(ctx, []string{l1, l2, l3}, runeLen(all)); got != all {
		t.Errorf("all fit:\n%q", got)
	}
	// One code point short: the last line gives way to the count.
	want := head + "\n" + l1 + "\n" + l2 + "\n" + moreLine(1)
	if got := addStale(ctx, []string{l1, l2, l3}, runeLen(all)-1); got != want {
		t.Errorf("one short:\n got %q\nwant %q", got, want)
	}
	want = head + "\n" + l1 + "\n- 2 more pages (git echoes stale)"
	if got := addStale(ctx, []string{l1, l2, l3}, runeLen(want)); got != want {
		t.Errorf("two left out:\n got %q\nwant %q", got, want)
	}
	if got := addStale(ctx, []string{l1, l2, l3}, runeLen(head)+2); got != ctx {
		t.Errorf("no room: %q", got)
	}
	for _, budget := range []int{runeLen(ctx), runeLen(head) + 30, runeLen(all) - 5, runeLen(all) + 5} {
		if got := addStale(ctx, []string{l1, l2, l3}, budget); runeLen(got) > budget && got != ctx {
			t.Errorf("budget %d exceeded: %d", budget, runeLen(got))
		}
	}
	if moreLine(1) != "- 1 more page (git echoes stale)" {
		t.Errorf("moreLine(1) = %q", moreLine(1))
	}
}

// StaleLines with real Git: nothing before the first commit, nothing for
// a fresh page, the one line for a page whose code changed, nothing in a
// shallow clone whose boundary is after the page's last change; and
// SessionStart's context is what it was before whenever there is no line,
// and keeps its budget when there are many.
func TestStaleLines(t *testing.T) {
	s := gitrepotest.New(t)
	dir := s.Init(filepath.Join(t.TempDir(), "r"))
	eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(eng, "init"); err != nil {
		t.Fatal(err)
	}
	write := func(p, text string) {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page := func(name, cite string) {
		write("EchoesVault/pages/"+name, "---\ntype: note\nstack: go\nstatus: active\nsummary: \"about "+cite+"\"\n---\n\nSee `"+cite+"`.\n")
	}
	write("src/a.go", "package a\n")
	page("a.md", "src/a.go")
	if got := StaleLines(dir); got != nil {
		t.Errorf("no commit: %q", got)
	}
	s.Git(dir, "add", "-A")
	s.Git(dir, "commit", "-qm", "vault")
	if got := StaleLines(dir); got != nil {
		t.Errorf("fresh: %q", got)
	}
	if got := context(t, SessionStart(event(dir, "startup"))); strings.Contains(got, "Memory freshness") ||
		!strings.HasSuffix(got, "**Save this session**") {
		t.Errorf("fresh vault: the context is not the card alone:\n%s", got)
	}
	write("src/a.go", "package a // rotated\n")
	s.Git(dir, "commit", "-qam", "rotate keys")
	got := StaleLines(dir)
	if len(got) != 1 || !strings.HasPrefix(got[0], "- a.md drifted: cites src/a.go, changed in 1 commit since this page, last ") ||
		!strings.HasSuffix(got[0], " 'rotate keys'") {
		t.Errorf("drifted: %q", got)
	}
	c := context(t, SessionStart(event(dir, "startup")))
	if !strings.HasSuffix(c, "\n\n"+staleHead+"\n"+got[0]) || runeLen(c) > CardBudget {
		t.Errorf("card context: %q", c)
	}

	// The hook writes nothing (echoes-conformance §22), not even a cache
	// under .git; git echoes stale's verdict cache, where present, is read
	// and gives the same line.
	before := testenv.TreeState(t, filepath.Join(dir, ".git"))
	if again := StaleLines(dir); len(again) != 1 || again[0] != got[0] {
		t.Errorf("again: %q", again)
	}
	SessionStart(event(dir, "startup"))
	if after := testenv.TreeState(t, filepath.Join(dir, ".git")); !reflect.DeepEqual(after, before) {
		t.Errorf("the hook wrote under .git")
	}
	if _, _, _, err := freshness.Reports(eng, freshness.Selection{}); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".git", "echoes", "stale", "*")); len(m) == 0 {
		t.Fatal("git echoes stale kept no verdict cache")
	}
	if again := StaleLines(dir); len(again) != 1 || again[0] != got[0] {
		t.Errorf("with stale's cache: %q", again)
	}
	write("EchoesVault/pages/a.md", "---\ntype: note\nstack: go\nstatus: active\nsummary: \"about src/a.go\"\n---\n\nSee `src/a.go`, rotated.\n")
	if got := StaleLines(dir); got != nil {
		t.Errorf("uncommitted edit: %q", got)
	}
	s.Git(dir, "checkout", "--", "EchoesVault/pages/a.md")
	if again := StaleLines(dir); len(again) != 1 || again[0] != got[0] {
		t.Errorf("edit undone: %q", again)
	}

	// A shallow clone of depth 1: the page's last change is beyond the
	// boundary, so drift cannot be seen and nothing is said.
	clone := filepath.Join(t.TempDir(), "c")
	// --no-local, not a file:// URL, makes the local clone shallow: a
	// Windows path makes no URL every git (and the wine test's) reads.
	s.Git(dir, "clone", "-q", "--no-local", "--depth", "1", dir, clone)
	if got := StaleLines(clone); got != nil {
		t.Errorf("shallow: %q", got)
	}

	// Many drifted pages: the card context keeps its budget.
	for i := 0; i < 40; i++ {
		page(strings.Repeat("long-page-name-", 3)+string(rune('a'+i%26))+strings.Repeat("x", i)+".md", "src/a.go")
	}
	s.Git(dir, "add", "-A")
	s.Git(dir, "commit", "-qm", "many pages")
	write("src/a.go", "package a // again\n")
	s.Git(dir, "commit", "-qam", "again")
	if got := StaleLines(dir); len(got) != StalePages {
		t.Errorf("%d lines, want %d (the pages checked)", len(got), StalePages)
	}
	for _, src := range []string{"startup", "compact"} {
		c := context(t, SessionStart(event(dir, src)))
		budget := CardBudget
		if src == "compact" {
			budget = PlainBudget
		}
		if runeLen(c) > budget || !strings.Contains(c, staleHead) {
			t.Errorf("%s: %d code points (budget %d)\n%s", src, runeLen(c), budget, c)
		}
	}
}
