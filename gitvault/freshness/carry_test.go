package freshness

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// TestCarryForwardIsTheColdAnswer: on random histories, each new commit
// after a cached run (edits, renames, deletes and line moves of cited
// files, a page edited, a file nothing cites, a memory dated after the
// new commit and one before it) gives through the cache the reports a
// cold Check gives; across the seeds some reports are carried and some
// recomputed.
func TestCarryForwardIsTheColdAnswer(t *testing.T) {
	carried0 := carryStats.Load()
	recomputed := 0
	forSeeds(t, func(t *testing.T, seed uint64) { recomputed += carryOnce(t, seed) })
	if carried := carryStats.Load() - carried0; carried == 0 || recomputed == 0 {
		t.Fatalf("%d reports carried, %d recomputed: the test must see both", carried, recomputed)
	}
}

func carryOnce(t *testing.T, seed uint64) (recomputed int) {
	r := newRefRepo(t, seed, 19, 6)
	// Pages citing random files: whole, by lines, a directory, and one
	// in the body.
	pages := make([]string, 4)
	writePage := func(n int, rev int) {
		names := r.names()
		pick := func() string { return names[r.rnd.IntN(len(names))] }
		src := []string{pick(), fmt.Sprintf("%s:%d-%d", pick(), 2, 4), "src/d1"}
		if n == 0 {
			src = nil // an uncited page
		}
		r.write(pages[n], page(src, fmt.Sprintf("Revision %d; see `%s`.", rev, pick())))
	}
	for n := range pages {
		pages[n] = fmt.Sprintf("EchoesVault/pages/p%d.md", n)
		writePage(n, 0)
	}
	r.commit("pages")
	r.op(3)
	dir := filepath.Join(t.TempDir(), "stale")
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Two memories, the same at every step: one written now, one dated
	// two seconds ahead, so the next commits (a second apart) are dated
	// at or before it and move its anchor.
	names := r.names()
	mems := []Doc{
		{Path: ".ecc/memory/team/old.md", Memory: true, Text: "See `" + names[0] + "`.", UpdatedAt: at(r.date())},
		{Path: ".ecc/memory/team/new.md", Memory: true, Text: "See `" + names[len(names)-1] + "`.", UpdatedAt: at(r.date()).Add(2 * time.Second)},
	}
	docsAt := func(target string) []Doc {
		var docs []Doc
		for _, p := range pages {
			docs = append(docs, Doc{Path: p, Text: r.git("show", target+":"+p)})
		}
		return append(docs, mems...)
	}
	render := func(target string, reps []Report) string { return pyjson.Compact(JSON(target, reps)) }
	head := r.git("rev-parse", "HEAD")
	if _, werr, err := CheckCached(r.open(), head, docsAt(head), dir); err != nil || werr != nil {
		t.Fatal(err, werr)
	}
	for step := 0; step < 6; step++ {
		switch k := r.rnd.IntN(7); {
		case k == 0: // a file nothing cites
			r.write(fmt.Sprintf("notes/n%d.txt", step), "notes\n")
			r.commit(fmt.Sprintf("notes %d", step))
		case k == 1: // a page edited
			writePage(1+r.rnd.IntN(len(pages)-1), step+1)
			r.commit(fmt.Sprintf("page edit %d", step))
		case k == 2: // a page edited and put back: same text, a new anchor
			p := pages[1+r.rnd.IntN(len(pages)-1)]
			text := r.read(p)
			r.write(p, text+"\nedited\n")
			r.commit(fmt.Sprintf("page edit %d", step))
			r.write(p, text)
			r.commit(fmt.Sprintf("page put back %d", step))
		default:
			r.op(10 + step)
		}
		head = r.git("rev-parse", "HEAD")
		docs := docsAt(head)
		before := carryStats.Load()
		got, werr, err := CheckCached(r.open(), head, docs, dir)
		if err != nil || werr != nil {
			t.Fatal(err, werr)
		}
		recomputed += len(docs) - int(carryStats.Load()-before)
		want, err := Check(r.open(), head, docs)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := render(head, got), render(head, want); g != w {
			t.Fatalf("step %d (%s): through the cache\n%s\ncold\n%s", step, r.git("log", "-1", "--format=%s"), g, w)
		}
	}
	return recomputed
}

// TestCarryForwardOnlyOverALine: a cached report (doctored, so that a
// carried one shows) is carried over commits that touch nothing it
// depends on, by the writer and by the read-only SessionStart reader,
// and never over a merge, past maxCarryCommits, or for a page with
// uncommitted changes.
func TestCarryForwardOnlyOverALine(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", lines(5, "a"))
	r.write(pg, page([]string{"a.go:2"}, ""))
	r.commit("one")
	dir := filepath.Join(t.TempDir(), "stale")
	docs := []Doc{{Path: pg, Text: r.read(pg)}}
	// doctor runs a cached check at HEAD and marks the cached report.
	doctor := func() {
		t.Helper()
		head := r.git("rev-parse", "HEAD")
		if _, werr, err := CheckCached(r.open(), head, docs, dir); err != nil || werr != nil {
			t.Fatal(err, werr)
		}
		path := filepath.Join(dir, "verdicts")
		cf, err := decodeCache([]byte(r.readAbs(path)))
		if err != nil || len(cf.Reports) == 0 {
			t.Fatalf("cache file: %v, %d reports", err, len(cf.Reports))
		}
		for k, rep := range cf.Reports { // every key of this target
			rep.Verdict = Missing
			cf.Reports[k] = rep
		}
		if err := fsx.WriteFileAtomic(path, encodeCache(&cf)); err != nil {
			t.Fatal(err)
		}
	}
	verdict := func(readOnly bool) Verdict {
		t.Helper()
		head := r.git("rev-parse", "HEAD")
		var reps []Report
		var err error
		if readOnly {
			reps, err = checkCachedReadOnly(r.open(), nil, head, docs, dir)
		} else {
			reps, _, err = CheckCached(r.open(), head, docs, dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		return reps[0].Verdict
	}

	doctor()
	r.write("notes.txt", "x\n")
	r.commit("nothing cited")
	r.write("b.go", "b\n")
	r.commit("nothing cited either")
	if v := verdict(true); v != Missing {
		t.Fatalf("read-only, two commits touching nothing cited: %s, want the cached report carried", v)
	}
	if v := verdict(false); v != Missing {
		t.Fatalf("two commits touching nothing cited: %s, want the cached report carried", v)
	}

	doctor()
	r.git("checkout", "-q", "-b", "side")
	r.write("c.go", "c\n")
	r.commit("side")
	r.git("checkout", "-q", "main")
	r.write("d.go", "d\n")
	r.commit("main")
	r.git("merge", "-q", "--no-ff", "-m", "merge", "side")
	if v := verdict(false); v != Fresh {
		t.Fatalf("over a merge: %s, want a report of its own (fresh)", v)
	}

	doctor()
	defer func(n int) { maxCarryCommits = n }(maxCarryCommits)
	maxCarryCommits = 2
	for i := 0; i < 3; i++ {
		r.write("notes.txt", fmt.Sprintf("%d\n", i))
		r.commit("notes")
	}
	if v := verdict(false); v != Fresh {
		t.Fatalf("past maxCarryCommits: %s, want a report of its own (fresh)", v)
	}

	docs[0].WorkTree = true
	doctor()
	r.write("notes.txt", "work tree\n")
	r.commit("notes")
	if v := verdict(false); v != Fresh {
		t.Fatalf("a page with uncommitted changes: %s, want a report of its own (fresh)", v)
	}
}
