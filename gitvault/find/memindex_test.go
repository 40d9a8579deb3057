package find

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestMemIndexMatchesFindAndWritesNothing: the in-memory index answers as
// Find does (same hits, same order, same scores), follows edits by file
// identity, and creates nothing anywhere in the workspace, its Git
// directory or the memory vault.
func TestMemIndexMatchesFindAndWritesNothing(t *testing.T) {
	eng := newVault(t, true)
	r := roots(t, eng)
	writePage(t, eng, "deploys", pageText("runbook", "infra", "active", "How we deploy.", "# Deploys\n\nWe deployed the service on Fridays."))
	writePage(t, eng, "old-deploys", pageText("runbook", "infra", "deprecated", "Old way.", "Deploying by hand. See [[deploys]]."))
	writeMemory(t, r, memSpec{ID: "mem_20260701_deploy", Title: "Deployment freeze", Kind: "decision", Body: "No deploying in December."})
	writeMemory(t, r, memSpec{ID: "mem_20260701_team", Title: "Team deploying rule", Kind: "fact", Scope: "team", Body: "Deploys need two reviewers."})
	writeFiller(t, eng, r, 40, 20, 7)
	ageAll(t, eng.WS.Pages, r.ScopeRoot("project"), r.ScopeRoot("team"))
	before := snapshotDir(t, eng.WS.Root)

	mi := NewMemIndex(eng.WS, r)
	defer mi.Close()
	opt := Options{Query: "deploy", Daily: true, Limit: 20}
	if err := mi.Warm(nil); err != nil {
		t.Fatal(err)
	}
	got, err := mi.Find(opt)
	if err != nil {
		t.Fatal(err)
	}
	if got.Index.Rebuilt || got.Index.Updated != 0 {
		t.Errorf("first query after Warm: %+v", got.Index)
	}
	if err := mi.Warm([]string{"nope"}); err == nil {
		t.Error("Warm accepted an unknown scope")
	}
	if after := snapshotDir(t, eng.WS.Root); !slices.Equal(before, after) {
		t.Fatalf("the in-memory index wrote to the workspace:\n%v\n---\n%v", before, after)
	}
	want := mustFind(t, eng, opt) // the on-disk engine, which does write its index
	if !slices.Equal(hitNames(got), hitNames(want)) {
		t.Fatalf("hits differ:\nmem  %v\nfind %v", hitNames(got), hitNames(want))
	}
	for i := range got.Hits {
		if got.Hits[i].Score != want.Hits[i].Score || !slices.Equal(got.Hits[i].ReplacedBy, want.Hits[i].ReplacedBy) {
			t.Errorf("hit %d: mem %+v, find %+v", i, got.Hits[i], want.Hits[i])
		}
	}
	if !slices.Contains(hitNames(got), "mem_20260701_deploy") || slices.Contains(hitNames(got), "mem_20260701_team") == false {
		t.Errorf("memories of the default scopes missing: %v", hitNames(got))
	}

	// A second query reads nothing again; an edit is seen.
	again, err := mi.Find(opt)
	if err != nil {
		t.Fatal(err)
	}
	if again.Index.Rebuilt || again.Index.Updated != 0 {
		t.Errorf("warm query: %+v", again.Index)
	}
	writePage(t, eng, "deploys", pageText("runbook", "infra", "active", "How we ship.", "# Shipping\n\nNothing about it here."))
	past := time.Now().Add(-time.Hour)
	_ = os.Chtimes(filepath.Join(eng.WS.Pages, "deploys.md"), past, past)
	edited, err := mi.Find(opt)
	if err != nil {
		t.Fatal(err)
	}
	// The edited page matches by its name alone now (a page's name is
	// indexed with its heading, issue 17): its new heading is shown.
	if edited.Index.Updated != 1 {
		t.Errorf("after the edit: %+v %v", edited.Index, hitNames(edited))
	}
	for _, h := range edited.Hits {
		if filepath.Base(h.File) == "deploys.md" && h.Title != "Shipping" {
			t.Errorf("after the edit: deploys.md has title %q, want the new heading", h.Title)
		}
	}
	// Query errors are Find's.
	if _, err := mi.Find(Options{Query: "  "}); err == nil {
		t.Error("an empty query was accepted")
	}
	if _, err := mi.Find(Options{Query: "x", Scopes: []string{"nope"}}); err == nil {
		t.Error("an unknown scope was accepted")
	}
}

// snapshotDir lists every path below dir with its size and modification
// time (directories included), in walk order.
func snapshotDir(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out = append(out, p+" "+fi.Mode().String()+" "+itoa64(fi.Size())+" "+fi.ModTime().UTC().String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ageAll sets every entry below the roots an hour into the past, so that
// no identity is racy.
func ageAll(t *testing.T, roots ...string) {
	t.Helper()
	for _, root := range roots {
		var paths []string
		_ = filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
			if err == nil {
				paths = append(paths, p)
			}
			return nil
		})
		old(t, paths...)
	}
}
