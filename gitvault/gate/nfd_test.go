package gate

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// The page names of gitvault's nfd_test.go: one stem in NFD and in NFC.
const (
	nfdStem = "cafe\u0301" // NFD: e + COMBINING ACUTE ACCENT
	nfcStem = "caf\u00e9"  // NFC: é
)

// check sees the same collision in a commit made on a system that wrote
// one name in NFD, as CI reads it from the object store.
func TestCheckNFDCollisionInGit(t *testing.T) {
	sb, e := checkRepo(t)
	root := e.WS.Root
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/"+nfdStem+".md"), testPage("NFD."))
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/"+strings.ToUpper(nfcStem)+".md"), testPage("NFC upper."))
	sb.Git(root, "add", "-A")
	sb.Git(root, "commit", "-qm", "nfd")
	if out := sb.Git(root, "ls-files", "-z", "EchoesVault/pages"); !strings.Contains(out, nfdStem+".md") {
		t.Fatalf("git did not keep the NFD bytes: %q", out)
	}
	want := []Finding{{Path: "EchoesVault/pages/" + nfdStem + ".md", Rule: ruleNameCollision,
		Message: "Page filenames collide across filesystems: 'CAFÉ' and '" + nfcStem + "'."}}
	for _, src := range []CheckSource{CheckWorkTree, CheckStaged, CheckRev} {
		res := mustCheck(t, e, CheckOptions{Source: src, Rev: "HEAD"})
		if !reflect.DeepEqual(res.Findings, want) {
			t.Errorf("%v: %#v, want %#v", src, res.Findings, want)
		}
	}
}

func testPage(summary string) string {
	return "---\ntype: note\nstack: go\nstatus: active\nsummary: " + summary + "\n---\nBody.\n"
}
