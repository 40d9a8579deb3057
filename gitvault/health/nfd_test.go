package health

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

const (
	nfdStem = "cafe\u0301" // NFD: e + COMBINING ACUTE ACCENT
	nfcStem = "caf\u00e9"  // NFC: é
)

// TestInspectNFDPage: a page whose file name is NFD on disk (gitvault's
// TestNFDPageOnDisk covers the index) is no orphan for inspect, which
// lists the raw stem as deprecated (echoes-conformance §18.2) and
// reports a collision with its NFC twin instead of failing.
func TestInspectNFDPage(t *testing.T) {
	e := initVault(t)
	root := e.WS.Root
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/"+nfdStem+".md"), page("Coffee notes.", "deprecated"))
	if _, err := os.Stat(filepath.Join(root, "EchoesVault/pages", nfcStem+".md")); err == nil {
		t.Skip("this file system normalizes names: the NFD bytes did not reach the disk")
	}
	if _, err := e.RebuildIndex(); err != nil {
		t.Fatal(err)
	}
	// inspect: the index matches, the slug is no orphan (NFC on both sides),
	// deprecatedSlugs lists the raw on-disk stem (echoes-conformance §18.2).
	h := Inspect(e).Health
	if h.TotalPages != 1 || len(h.OrphanPages) != 0 || len(h.MissingPages) != 0 || len(h.IndexOutOfDate) != 0 || len(h.IndexBuildErrors) != 0 {
		t.Errorf("health: pages %d orphan %q missing %q outOfDate %q build %q", h.TotalPages, h.OrphanPages, h.MissingPages, h.IndexOutOfDate, h.IndexBuildErrors)
	}
	if !reflect.DeepEqual(h.DeprecatedSlugs, []string{nfdStem}) {
		t.Errorf("deprecatedSlugs = %q, want the raw NFD stem", h.DeprecatedSlugs)
	}

	// An NFD and an NFC file side by side: inspect reports the collision.
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/"+nfcStem+".md"), page("Other.", "active"))
	collide := "Page filenames collide across filesystems: '" + nfcStem + "' and '" + nfcStem + "'."
	if h := Inspect(e).Health; !reflect.DeepEqual(h.IndexBuildErrors, []string{collide}) || h.TotalPages != 2 {
		t.Errorf("inspect with NFD and NFC files: build errors %q, pages %d", h.IndexBuildErrors, h.TotalPages)
	}
}

// TestInspectNeverMentionsCache: inside Git the page cache lives below
// .git/echoes; it never shows up in inspect's lists.
func TestInspectNeverMentionsCache(t *testing.T) {
	sb := gitrepotest.New(t)
	root := sb.Init(filepath.Join(t.TempDir(), "repo"))
	g, err := gitvault.Open(gitvault.Options{Workspace: root})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(g, "init"); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/a.md"), page("A.", "active"))
	if _, err := g.Hydrate(); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(root, ".git", "echoes", "pages", "*")); len(m) == 0 {
		t.Fatal("hydrate wrote no cache file in Git")
	}
	g, err = gitvault.Open(gitvault.Options{Workspace: root})
	if err != nil {
		t.Fatal(err)
	}
	js := pyjson.Pretty(Inspect(g).JSON())
	if strings.Contains(js, "echoes/pages") || strings.Contains(js, ".cache") {
		t.Errorf("inspect mentions the cache:\n%s", js)
	}
	if !reflect.DeepEqual(Inspect(g).Health.OrphanPages, []string(nil)) && len(Inspect(g).Health.OrphanPages) != 0 {
		t.Errorf("orphans: %q", Inspect(g).Health.OrphanPages)
	}
}
