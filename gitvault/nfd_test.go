package gitvault

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// Page names that reach the disk in NFD (macOS HFS+ writes them so; a
// checkout of a commit made there keeps the bytes) are handled exactly as
// the protocol says (protocol §7.1, protocol §8; echoes-conformance §8.2, echoes-conformance §8.3,
// echoes-conformance §11.1, echoes-conformance §15.7, echoes-conformance §18.2): the slug and the sort key use NFC(stem), the
// collision rule compares casefold(NFC(stem)), names from payloads are
// normalized to NFC before they become file names, and health reports raw
// stems where the reference does. The file systems used in CI keep the bytes
// as given, so the NFD name is really on disk here.
const (
	nfdStem = "cafe\u0301" // NFD: e + COMBINING ACUTE ACCENT
	nfcStem = "caf\u00e9"  // NFC: é
)

func TestNFDPageOnDisk(t *testing.T) {
	e := initVault(t)
	root := e.WS.Root
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/"+nfdStem+".md"), page("Coffee notes.", "deprecated"))
	if _, err := os.Stat(filepath.Join(root, "EchoesVault/pages", nfcStem+".md")); err == nil {
		t.Skip("this file system normalizes names: the NFD bytes did not reach the disk")
	}

	// rebuild-index: one row whose slug is NFC(stem), with the deprecation prefix.
	res, err := e.RebuildIndex()
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.Obj.Get("pageCount"); n.Num.String() != "1" {
		t.Errorf("pageCount = %v", n)
	}
	index, _ := os.ReadFile(e.WS.Index)
	if want := "\n- [[" + nfcStem + "]]: DEPRECATED — Coffee notes.\n"; !strings.HasSuffix(string(index), want) {
		t.Errorf("index rows:\n%q\nwant suffix %q", index, want)
	}

	// search: the file is the on-disk name (echoes-conformance §15.7), bytes as on disk.
	sr, err := e.Search("coffee", 10)
	if err != nil {
		t.Fatal(err)
	}
	results, _ := sr.JSON().Obj.Get("results")
	if len(results.Arr) != 1 {
		t.Fatalf("search results: %v", results)
	}
	if f, _ := results.Arr[0].Obj.Get("file"); f.S != filepath.Join("EchoesVault", "pages", nfdStem+".md") {
		t.Errorf("search file = %q, want the NFD on-disk name", f.S)
	}

	// upsert of the same name, given in NFC or in NFD: the payload name is
	// normalized to NFC (echoes-conformance §8.1), which is another file on this disk, and the
	// two collide after NFC and case folding (echoes-conformance §8.3). Nothing is written.
	before := treeBytes(t, root)
	for _, name := range []string{nfcStem, nfdStem, strings.ToUpper(nfcStem), nfdStem + ".md"} {
		_, err := e.Upsert(pagePayload("filename", name, "content", page("New.", "active")))
		want := "Page filenames collide across filesystems: '" + nfcStem + "' and '" + pagetoNFC(name) + "'."
		if err == nil || err.Error() != want {
			t.Errorf("upsert %q: %v, want %q", name, err, want)
		}
	}
	if after := treeBytes(t, root); !reflect.DeepEqual(after, before) {
		t.Errorf("a refused upsert changed the tree")
	}

	// An NFD and an NFC file side by side block every index render, and
	// inspect reports the collision instead of failing (gitvault/health).
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/"+nfcStem+".md"), page("Other.", "active"))
	collide := "Page filenames collide across filesystems: '" + nfcStem + "' and '" + nfcStem + "'."
	if _, err := e.RebuildIndex(); err == nil || err.Error() != collide {
		t.Errorf("rebuild-index with NFD and NFC files: %v", err)
	}
}

func pagetoNFC(name string) string {
	name = strings.TrimSuffix(name, ".md")
	if name == nfdStem {
		return nfcStem
	}
	return name
}

// A new page named in NFD is written under its NFC name: the file on disk
// and the index row both use the composed form, so a macOS writer and a
// Linux writer create the same bytes.
func TestUpsertNFDNameWritesNFC(t *testing.T) {
	e := initVault(t)
	res, err := e.Upsert(pagePayload("filename", nfdStem, "content", page("Composed.", "active")))
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := res.Obj.Get("page"); p.S != filepath.Join(e.WS.Pages, nfcStem+".md") {
		t.Errorf("page = %q, want the NFC name", p.S)
	}
	names, err := listPageNames(e.WS.Pages)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(names, []string{nfcStem + ".md"}) {
		t.Errorf("pages on disk = %q", names)
	}
	index, _ := os.ReadFile(e.WS.Index)
	if !strings.HasSuffix(string(index), "\n- [["+nfcStem+"]]: Composed.\n") {
		t.Errorf("index = %q", index)
	}
}
