package find

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/health"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

func mustFind(t *testing.T, eng *gitvault.Engine, opt Options) *Result {
	t.Helper()
	res, err := Find(eng.WS, opt)
	if err != nil {
		t.Fatalf("find %q: %v", opt.Query, err)
	}
	return res
}

// old makes a file's modification time safely older than any indexing
// time, so its identity is trusted (not racy).
func old(t *testing.T, paths ...string) {
	t.Helper()
	ts := time.Now().Add(-time.Hour)
	for _, p := range paths {
		if err := os.Chtimes(p, ts, ts); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDeprecatedRanksBelowReplacement(t *testing.T) {
	eng := newVault(t, false)
	// The deprecated page matches the query far better by the text alone.
	writePage(t, eng, "throttle-v1", pageText("decision", "api", "deprecated", "Rate limit rate limit by IP",
		"> [!warning] DEPRECATED\n\nRate limit by IP. The rate limit was 50. Rate limit everything.\nReplaced by [[throttle-v2]]."))
	writePage(t, eng, "throttle-v2", pageText("decision", "api", "active", "Per-token quotas", "We rate-limit per token."))
	writePage(t, eng, "unrelated-old", pageText("note", "api", "deprecated", "Rate limit notes", "rate limit rate limit"))
	res := mustFind(t, eng, Options{Query: "rate limit"})
	got := hitNames(res)
	iOld, iNew := slices.Index(got, "EchoesVault/pages/throttle-v1.md"), slices.Index(got, "EchoesVault/pages/throttle-v2.md")
	if iOld < 0 || iNew < 0 || iOld < iNew {
		t.Fatalf("deprecated page must rank below its replacement: %v", got)
	}
	h := res.Hits[iOld]
	if !h.Deprecated || len(h.ReplacedBy) != 1 || filepath.ToSlash(h.ReplacedBy[0]) != "EchoesVault/pages/throttle-v2.md" {
		t.Errorf("the deprecated hit must say so and name its replacement: %+v", h)
	}
	text, err := res.Render("text", 0)
	if err != nil || !strings.Contains(text, "DEPRECATED: replaced by EchoesVault") {
		t.Errorf("text answer does not say it: %v\n%s", err, text)
	}
	if res.Hits[slices.Index(got, "EchoesVault/pages/throttle-v2.md")].Deprecated {
		t.Error("active page marked deprecated")
	}
}

func TestMemoryScopeAndStatusRules(t *testing.T) {
	eng := newVault(t, false)
	r := roots(t, eng)
	writeMemory(t, r, memSpec{ID: "mem_proj", Title: "zebra project", Kind: "note", Body: "zebra"})
	writeMemory(t, r, memSpec{ID: "mem_team", Title: "zebra team", Kind: "note", Body: "zebra", Scope: "team"})
	writeMemory(t, r, memSpec{ID: "mem_user", Title: "zebra user", Kind: "note", Body: "zebra", Scope: "user"})
	writeMemory(t, r, memSpec{ID: "mem_gone", Title: "zebra superseded", Kind: "note", Body: "zebra", Status: "superseded"})
	for _, tc := range []struct {
		opt  Options
		want []string
	}{
		{Options{Query: "zebra"}, []string{"mem_proj", "mem_team"}},
		{Options{Query: "zebra", Scopes: []string{"user"}}, []string{"mem_user"}},
		{Options{Query: "zebra", Scopes: []string{"project", "user"}}, []string{"mem_proj", "mem_user"}},
		{Options{Query: "zebra", Statuses: []string{"superseded"}}, []string{"mem_gone"}},
		{Options{Query: "zebra", Statuses: []string{"active", "superseded"}}, []string{"mem_gone", "mem_proj", "mem_team"}},
	} {
		got := hitNames(mustFind(t, eng, tc.opt))
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%+v: got %v, want %v", tc.opt, got, tc.want)
		}
	}
}

func TestIncrementalByIdentity(t *testing.T) {
	eng := newVault(t, true)
	for _, n := range []string{"alpha", "beta", "gamma"} {
		writePage(t, eng, n, pageText("note", "go", "active", n+" summary", "plain words about "+n))
	}
	pages := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(eng.WS.Pages, n+".md"))
		}
		return out
	}
	old(t, pages("alpha", "beta", "gamma")...)
	res := mustFind(t, eng, Options{Query: "plain"})
	if !res.Index.Rebuilt || res.Index.Updated != 3 {
		t.Fatalf("first query builds the index: %+v", res.Index)
	}
	res = mustFind(t, eng, Options{Query: "plain"})
	if res.Index.Rebuilt || res.Index.Updated != 0 || res.Index.Removed != 0 {
		t.Fatalf("unchanged vault: nothing re-indexed: %+v", res.Index)
	}
	// One changed page: only it is read again.
	writePage(t, eng, "beta", pageText("note", "go", "active", "beta summary", "now about walruses"))
	old(t, pages("beta")...)
	res = mustFind(t, eng, Options{Query: "walrus"})
	if res.Index.Updated != 1 || res.Index.Rebuilt || len(res.Hits) != 1 {
		t.Fatalf("one change, one re-index: %+v %v", res.Index, hitNames(res))
	}
	// A deleted page is dropped; a new one is added.
	os.Remove(pages("gamma")[0])
	writePage(t, eng, "delta", pageText("note", "go", "active", "delta", "plain again"))
	old(t, pages("delta")...)
	res = mustFind(t, eng, Options{Query: "plain"})
	if res.Index.Updated != 1 || res.Index.Removed != 1 {
		t.Fatalf("delete and add: %+v", res.Index)
	}
	if got := hitNames(res); !slices.Equal(sorted(got), []string{"EchoesVault/pages/alpha.md", "EchoesVault/pages/delta.md"}) {
		t.Errorf("hits %v", got)
	}
	// A rewrite in place with the same size and the old mtime put back
	// (cp -p, rsync -t, tar x) still changes the identity: the change time
	// moves, so the page is read again. (Unchanged files, above, are
	// trusted: that is what makes a warm query a stat pass.)
	p := pages("alpha")[0]
	fi, _ := os.Stat(p)
	b, _ := os.ReadFile(p)
	same := strings.Replace(string(b), "plain words about alpha", "plain words about omega", 1)
	if err := os.WriteFile(p, []byte(same), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	if res = mustFind(t, eng, Options{Query: "omega"}); res.Index.Updated != 1 || len(res.Hits) != 1 {
		t.Errorf("a same-size edit with its mtime restored must be re-indexed: %+v %v", res.Index, hitNames(res))
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// TestRacyEdits: a page rewritten within the timestamp granule of its
// indexing (same size, same mtime) is still seen: racy entries are
// re-read by content until their mtime is safely older than the index.
func TestRacyEdits(t *testing.T) {
	eng := newVault(t, false)
	p := filepath.Join(eng.WS.Pages, "racy.md")
	writePage(t, eng, "racy", pageText("note", "go", "active", "racy", "first version: aardvark"))
	fi, _ := os.Stat(p)
	if res := mustFind(t, eng, Options{Query: "aardvark"}); len(res.Hits) != 1 {
		t.Fatalf("hits %v", hitNames(res))
	}
	writePage(t, eng, "racy", pageText("note", "go", "active", "racy", "other version: pangolin"))
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if fi2, _ := os.Stat(p); fi2.Size() != fi.Size() || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Fatal("the edit must keep size and mtime")
	}
	res := mustFind(t, eng, Options{Query: "pangolin"})
	if len(res.Hits) != 1 || res.Index.Updated != 1 {
		t.Fatalf("racy edit missed: %+v %v", res.Index, hitNames(res))
	}
	if res := mustFind(t, eng, Options{Query: "aardvark"}); len(res.Hits) != 0 {
		t.Errorf("old content still found: %v", hitNames(res))
	}
}

// TestUntrustedIndexIsRebuilt: corrupt, foreign, outdated, a damaged
// pointer, a deleted index: each is rebuilt and the answer is the same.
func TestUntrustedIndexIsRebuilt(t *testing.T) {
	eng := newVault(t, true)
	writePage(t, eng, "one", pageText("note", "go", "active", "one", "the quokka page"))
	want := hitNames(mustFind(t, eng, Options{Query: "quokka"}))
	cache, _ := eng.WS.LocalCacheDir("find")
	dir := indexDir(cache, eng.WS.Root)
	current := func() string {
		b, err := os.ReadFile(filepath.Join(dir, "current"))
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, strings.TrimSpace(string(b))+".db")
	}
	setMeta := func(k, v string) {
		s, err := openCurrent(dir, eng.WS.Root)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.Exec(`UPDATE meta SET v = ? WHERE k = ?`, v, k); err != nil {
			t.Fatal(err)
		}
		s.close()
	}
	for _, tc := range []struct {
		name   string
		damage func()
	}{
		{"corrupt", func() {
			db := current()
			os.Remove(db + "-wal")
			os.Remove(db + "-shm")
			if err := os.WriteFile(db, []byte(strings.Repeat("not a database ", 500)), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"truncated", func() {
			db := current()
			b, _ := os.ReadFile(db)
			os.WriteFile(db, b[:len(b)/2], 0o644)
		}},
		{"foreign", func() { setMeta("root", "/somewhere/else") }},
		{"other format", func() { setMeta("format", "git-echoes-find/0") }},
		{"other analysis", func() { setMeta("analysis", "0") }},
		{"pointer", func() { os.WriteFile(filepath.Join(dir, "current"), []byte("../../etc/passwd\n"), 0o644) }},
		{"deleted", func() { os.RemoveAll(cache) }},
	} {
		tc.damage()
		res, err := Find(eng.WS, Options{Query: "quokka"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !res.Index.Rebuilt {
			t.Errorf("%s: not rebuilt: %+v", tc.name, res.Index)
		}
		if got := hitNames(res); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tc.name, got, want)
		}
		if res := mustFind(t, eng, Options{Query: "quokka"}); res.Index.Rebuilt {
			t.Errorf("%s: the rebuilt index is not trusted afterwards: %+v", tc.name, res.Index)
		}
	}
	// Old generations do not pile up.
	entries, _ := os.ReadDir(dir)
	var dbs []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".db") {
			dbs = append(dbs, e.Name())
		}
	}
	if len(dbs) != 1 {
		t.Errorf("generations left: %v", dbs)
	}
}

func TestIndexLocationNeverInTheTree(t *testing.T) {
	eng := newVault(t, true)
	writePage(t, eng, "one", pageText("note", "go", "active", "one", "the quokka page"))
	// Commit the vault so that only what find adds could show up.
	g := testenv.TempGit(t)
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", eng.WS.Root}, args...)...)
		cmd.Env = append(g.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("add", "-A")
	git("commit", "-qm", "vault")
	before := git("status", "--porcelain", "--ignored", "--untracked-files=all")
	mustFind(t, eng, Options{Query: "quokka"})
	if _, err := os.Stat(filepath.Join(eng.WS.Root, ".git", "echoes", "find")); err != nil {
		t.Fatalf("index not under .git/echoes/find: %v", err)
	}
	if after := git("status", "--porcelain", "--ignored", "--untracked-files=all"); after != before {
		t.Errorf("find changed the work tree status:\n%s\n---\n%s", before, after)
	}
	in := pyjson.Pretty(health.Inspect(eng).JSON())
	if strings.Contains(in, "echoes/find") || strings.Contains(in, ".db") {
		t.Errorf("inspect lists the index:\n%s", in)
	}
	// Outside Git: under the ignored runtime directory.
	eng2 := newVault(t, false)
	writePage(t, eng2, "one", pageText("note", "go", "active", "one", "the quokka page"))
	mustFind(t, eng2, Options{Query: "quokka"})
	if _, err := os.Stat(filepath.Join(eng2.WS.RuntimeDir, "cache", "find")); err != nil {
		t.Fatalf("index not under .echoes-vault/cache/find: %v", err)
	}
	in = pyjson.Pretty(health.Inspect(eng2).JSON())
	if strings.Contains(in, "cache") {
		t.Errorf("inspect lists the index:\n%s", in)
	}
}

func TestInvalidPageSkippedAndReported(t *testing.T) {
	eng := newVault(t, false)
	writePage(t, eng, "good", pageText("note", "go", "active", "good", "ocelot here"))
	writePage(t, eng, "bad", "---\ntype: note\n---\nocelot without frontmatter\n")
	res := mustFind(t, eng, Options{Query: "ocelot"})
	if got := hitNames(res); !slices.Equal(got, []string{"EchoesVault/pages/good.md"}) {
		t.Errorf("hits %v", got)
	}
	if len(res.Skipped) != 1 || filepath.ToSlash(res.Skipped[0].File) != "EchoesVault/pages/bad.md" || !strings.Contains(res.Skipped[0].Error, "missing required keys") {
		t.Errorf("skipped %+v", res.Skipped)
	}
	// The literal search still scans it.
	sr, err := eng.Search("ocelot", 10)
	if err != nil || len(sr.Hits) != 2 {
		t.Errorf("search: %v %+v", err, sr)
	}
	j, _ := res.Render("json", 0)
	if !strings.Contains(j, `"skippedPages": [`) || !strings.Contains(j, "bad.md") {
		t.Errorf("json does not report the skipped page:\n%s", j)
	}
}

func TestFiltersAndDaily(t *testing.T) {
	eng := newVault(t, false)
	writePage(t, eng, "a", pageText("Decision", "Go", "active", "a", "lemur"))
	writePage(t, eng, "b", pageText("runbook", "python", "draft", "b", "lemur"))
	day := filepath.Join(eng.WS.Daily, "2026-03-04")
	os.MkdirAll(day, 0o755)
	os.WriteFile(filepath.Join(day, "entry.md"), []byte("- saw a lemur today\n"), 0o644)
	for _, tc := range []struct {
		opt  Options
		want []string
	}{
		{Options{Query: "lemur"}, []string{"EchoesVault/pages/a.md", "EchoesVault/pages/b.md"}},
		{Options{Query: "lemur", Types: []string{"decision"}}, []string{"EchoesVault/pages/a.md"}},
		{Options{Query: "lemur", Stacks: []string{"PYTHON"}}, []string{"EchoesVault/pages/b.md"}},
		{Options{Query: "lemur", Statuses: []string{"draft"}}, []string{"EchoesVault/pages/b.md"}},
		{Options{Query: "lemur", Daily: true}, []string{"EchoesVault/daily/2026-03-04/entry.md", "EchoesVault/pages/a.md", "EchoesVault/pages/b.md"}},
		{Options{Query: "lemur", Daily: true, Since: "2099-01-01"}, nil},
	} {
		got := sorted(hitNames(mustFind(t, eng, tc.opt)))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%+v: got %v, want %v", tc.opt, got, tc.want)
		}
	}
}

// A page's stack is its items, read as the viewer and review read it
// (gitvault.StackOf, issue 17): an inline list, a scalar or a block list;
// --stack matches one item, and a hit lists the items.
func TestStackItems(t *testing.T) {
	eng := newVault(t, false)
	writePage(t, eng, "inline", pageText("note", "[Go, docker]", "active", "i", "wombat"))
	writePage(t, eng, "block", "---\ntype: note\nstack:\n  - rust\n  - Docker\nstatus: active\nsummary: b\n---\nwombat\n")
	writePage(t, eng, "scalar", pageText("note", "go", "active", "s", "wombat"))
	writePage(t, eng, "prefix", pageText("note", "[dock]", "active", "p", "wombat"))
	for _, tc := range []struct {
		stacks []string
		want   []string
	}{
		{[]string{"docker"}, []string{"EchoesVault/pages/block.md", "EchoesVault/pages/inline.md"}},
		{[]string{"GO"}, []string{"EchoesVault/pages/inline.md", "EchoesVault/pages/scalar.md"}},
		{[]string{"rust", "dock"}, []string{"EchoesVault/pages/block.md", "EchoesVault/pages/prefix.md"}},
		{[]string{"[go, docker]"}, nil},
	} {
		got := sorted(hitNames(mustFind(t, eng, Options{Query: "wombat", Stacks: tc.stacks})))
		if !slices.Equal(got, tc.want) {
			t.Errorf("--stack %v: got %v, want %v", tc.stacks, got, tc.want)
		}
	}
	for _, h := range mustFind(t, eng, Options{Query: "wombat"}).Hits {
		want := map[string][]string{"inline.md": {"Go", "docker"}, "block.md": {"rust", "Docker"}, "scalar.md": {"go"}, "prefix.md": {"dock"}}[filepath.Base(h.File)]
		if !slices.Equal(h.Stack, want) {
			t.Errorf("%s: stack %q, want %q", h.File, h.Stack, want)
		}
	}
}

func TestBestLinesAndBudget(t *testing.T) {
	eng := newVault(t, false)
	for _, n := range []string{"p1", "p2", "p3", "p4"} {
		writePage(t, eng, n, pageText("note", "go", "active", "the "+n+" summary", "# "+n+"\n\nintro\nthe narwhal line\nmore\nnarwhal again"))
	}
	res := mustFind(t, eng, Options{Query: "narwhal"})
	if len(res.Hits) != 4 {
		t.Fatalf("hits %v", hitNames(res))
	}
	// Line numbers count the frontmatter, as search does.
	if l := res.Hits[0].Lines; len(l) != 2 || l[0].N != 10 || l[0].Text != "the narwhal line" || l[1].N != 12 {
		t.Errorf("lines %+v", l)
	}
	for _, format := range Formats {
		full, _ := res.Render(format, 0)
		n := len([]rune(full))
		out, err := res.Render(format, n-1)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len([]rune(out)) > n-1 {
			t.Errorf("%s: %d characters over a budget of %d", format, len([]rune(out)), n-1)
		}
		if format == "json" {
			if !strings.Contains(out, `"omitted": 1`) {
				t.Errorf("json does not count the hit left out:\n%s", out)
			}
		} else if !strings.Contains(out, "1 more hit(s) left out") {
			t.Errorf("%s does not count the hit left out:\n%s", format, out)
		}
		if _, err := res.Render(format, 10); err == nil {
			t.Errorf("%s: a budget of 10 must be refused", format)
		}
	}
}

func TestQueryErrors(t *testing.T) {
	for _, q := range []string{"", "   ", strings.Repeat("a", 501), `"unbalanced`, `a "b c`, "-only", `-"only this"`, "!!! ???", "a\x01b", "x*", "\xff"} {
		if _, err := ParseQuery(q); err == nil {
			t.Errorf("%q: accepted", q)
		} else if _, ok := err.(*QueryError); !ok {
			t.Errorf("%q: %T", q, err)
		}
	}
	for _, q := range []string{"a", `"a b"`, "a -b", "ab*", "rate-limit", "café", strings.Repeat("a", 500)} {
		if _, err := ParseQuery(q); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
	eng := newVault(t, false)
	for _, opt := range []Options{
		{Query: "x", Limit: 101}, {Query: "x", Limit: -1}, {Query: "x", Kinds: []string{"nope"}},
		{Query: "x", Scopes: []string{"global"}}, {Query: "x", Since: "yesterday"},
		{Query: "x", Types: []string{"a"}, Kinds: []string{"note"}}, {Query: "x", Tags: []string{" "}},
	} {
		if _, err := Find(eng.WS, opt); err == nil {
			t.Errorf("%+v: accepted", opt)
		} else if _, ok := err.(*QueryError); !ok {
			t.Errorf("%+v: %T %v", opt, err, err)
		}
	}
}

// TestMemoryIncremental: an unchanged memory vault is not scanned again
// (the stat fingerprint matches); one changed memory is the only one
// re-indexed; a removed one is dropped.
func TestMemoryIncremental(t *testing.T) {
	eng := newVault(t, false)
	r := roots(t, eng)
	for _, id := range []string{"mem_aaa1", "mem_bbb2", "mem_ccc3"} {
		writeMemory(t, r, memSpec{ID: id, Title: "capybara " + id, Kind: "note", Body: "capybara"})
	}
	ageAll := func() {
		filepath.WalkDir(r.ProjectVault, func(p string, d os.DirEntry, err error) error {
			if err == nil {
				old(t, p)
			}
			return nil
		})
	}
	ageAll()
	if res := mustFind(t, eng, Options{Query: "capybara"}); res.Index.Updated != 3 || len(res.Hits) != 3 {
		t.Fatalf("%+v %v", res.Index, hitNames(res))
	}
	if res := mustFind(t, eng, Options{Query: "capybara"}); res.Index.Updated != 0 || res.Index.Removed != 0 {
		t.Fatalf("unchanged: %+v", res.Index)
	}
	writeMemory(t, r, memSpec{ID: "mem_bbb2", Title: "capybara changed", Kind: "note", Body: "capybara and tapir"})
	os.Remove(filepath.Join(r.ScopeRoot("project"), "notes", "mem_ccc3.md"))
	ageAll()
	res := mustFind(t, eng, Options{Query: "tapir"})
	if res.Index.Updated != 1 || res.Index.Removed != 1 || len(res.Hits) != 1 || res.Hits[0].ID != "mem_bbb2" {
		t.Fatalf("%+v %v", res.Index, hitNames(res))
	}
}

// TestDeprecatedMovedOnce: a deprecated page that outranks its
// replacement even at half its score is moved below it, once, and names
// the replacement once.
func TestDeprecatedMovedOnce(t *testing.T) {
	eng := newVault(t, false)
	writePage(t, eng, "legacy", pageText("decision", "api", "deprecated", "Platypus platypus platypus",
		"# Platypus\n\n"+strings.Repeat("platypus platypus platypus\n", 20)+"See [[current]] and [[Other-Current.md]]."))
	// The replacements mention it once in a long body: a far weaker match.
	filler := strings.Repeat("unrelated words about other animals entirely\n", 60)
	writePage(t, eng, "current", pageText("decision", "api", "active", "Monotremes", "One platypus note.\n"+filler))
	writePage(t, eng, "other-current", pageText("decision", "api", "active", "More monotremes", "A platypus aside.\n"+filler))
	for i := 0; i < 5; i++ {
		writePage(t, eng, fmt.Sprintf("noise-%d", i), pageText("note", "api", "active", "noise", "unrelated words"))
	}
	res := mustFind(t, eng, Options{Query: "platypus"})
	got := hitNames(res)
	if len(got) != 3 || got[2] != "EchoesVault/pages/legacy.md" {
		t.Fatalf("order %v", got)
	}
	h := res.Hits[2]
	if len(h.ReplacedBy) != 2 || h.Score > res.Hits[1].Score {
		t.Errorf("%+v", h)
	}
}
