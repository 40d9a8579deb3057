package gate

import (
	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

const goodPage = "---\ntype: note\nstack: go\nstatus: active\nsummary: Good.\n---\nBody.\n"

// checkRepo creates an initialized vault committed in a fresh repository.
func checkRepo(t *testing.T) (*gitrepotest.Sandbox, *gitvault.Engine) {
	t.Helper()
	sb := gitrepotest.New(t)
	dir := sb.Init(filepath.Join(t.TempDir(), "repo"))
	e, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, filepath.Join(dir, "EchoesVault/pages/good.md"), goodPage)
	sb.Git(dir, "add", "-A")
	sb.Git(dir, "commit", "-qm", "vault")
	return sb, e
}

func mustCheck(t *testing.T, e *gitvault.Engine, opt CheckOptions) *CheckResult {
	t.Helper()
	res, err := Check(e, opt)
	if err != nil {
		t.Fatalf("Check(%+v): %v", opt, err)
	}
	return res
}

func rules(res *CheckResult) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, f.Path+":"+f.Rule)
	}
	return out
}

// The three sources are one validation: the same content yields the same
// findings whether it sits in the work tree, the index or a commit.
func TestCheckSourcesAgree(t *testing.T) {
	sb, e := checkRepo(t)
	root := e.WS.Root
	for _, src := range []CheckSource{CheckWorkTree, CheckStaged, CheckRev} {
		if res := mustCheck(t, e, CheckOptions{Source: src, Rev: "HEAD"}); !res.OK() || !res.Vault || res.Pages != 1 {
			t.Fatalf("%v on a clean vault: %+v", src, res)
		}
	}
	if foldsCase(t, filepath.Join(root, "EchoesVault/pages/good.md")) {
		// Windows and macOS defaults: good.md and Good.MD are one file there, so
		// the collision this scenario needs cannot be put in a work tree.
		t.Skip("case-insensitive file system: good.md and Good.MD cannot both exist")
	}
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/Good.MD"), goodPage) // collides with good.md
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/nosummary.md"), "---\ntype: a\nstack: b\nstatus: c\n---\nx\n")
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/latin1.md"), "---\ntype: caf\xe9\n---\n")
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/daily/2026-01-01/x.md"), "a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> o\n")
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/pages/nested/deep.md"), "not a page, no markers\n")
	testenv.WriteFile(t, filepath.Join(root, "EchoesVault/assets/notes.txt"), "<<<<<<< not markdown\n")
	if err := os.Symlink("good.md", filepath.Join(root, "EchoesVault/pages/link.md")); err != nil {
		t.Fatal(err)
	}
	sb.Git(root, "add", "-A")
	sb.Git(root, "commit", "-qm", "bad")
	want := []string{
		"EchoesVault/daily/2026-01-01/x.md:conflict-marker",
		"EchoesVault/daily/2026-01-01/x.md:conflict-marker",
		"EchoesVault/daily/2026-01-01/x.md:conflict-marker",
		"EchoesVault/pages/good.md:name-collision",
		"EchoesVault/pages/latin1.md:page-invalid",
		"EchoesVault/pages/nosummary.md:page-invalid",
	}
	var first *CheckResult
	for _, src := range []CheckSource{CheckWorkTree, CheckStaged, CheckRev} {
		res := mustCheck(t, e, CheckOptions{Source: src, Rev: "HEAD"})
		if got := rules(res); !reflect.DeepEqual(got, want) {
			t.Fatalf("%v: findings %q, want %q", src, got, want)
		}
		if res.Pages != 4 { // good, Good.MD, latin1, nosummary; not the symlink
			t.Errorf("%v: %d pages, want 4", src, res.Pages)
		}
		if first == nil {
			first = res
		} else if !reflect.DeepEqual(first.Findings, res.Findings) {
			t.Errorf("%v findings differ from the work tree's:\n%+v\n%+v", src, res.Findings, first.Findings)
		}
	}
	if f := first.Findings[1]; f.Line != 4 || f.Message != "unresolved Git conflict marker '======='" {
		t.Errorf("marker finding = %+v", f)
	}
	if f := first.Findings[4]; f.Message != "Cannot read page latin1.md: invalid UTF-8" {
		t.Errorf("latin1 finding = %+v", f)
	}
}

func TestCheckMarker(t *testing.T) {
	sb, e := checkRepo(t)
	root := e.WS.Root
	cases := []struct{ content, want string }{
		{"[]", "Invalid EchoesVault marker: root must be an object."},
		{`{"protocolVersion": "2.0.0"}`, "Unsupported EchoesVault protocol '2.0.0'; this runtime supports 1.0.0. Upgrade the agent adapter before writing."},
	}
	for _, c := range cases {
		testenv.WriteFile(t, filepath.Join(root, "EchoesVault/.echoes-vault.json"), c.content)
		sb.Git(root, "add", "-A")
		for _, src := range []CheckSource{CheckWorkTree, CheckStaged} {
			res := mustCheck(t, e, CheckOptions{Source: src})
			if len(res.Findings) != 1 || res.Findings[0].Rule != ruleMarkerInvalid || res.Findings[0].Message != c.want {
				t.Errorf("%v %s: %+v", src, c.content, res.Findings)
			}
		}
	}
	sb.Git(root, "rm", "-qf", "EchoesVault/.echoes-vault.json")
	res := mustCheck(t, e, CheckOptions{Source: CheckStaged})
	if got := rules(res); !reflect.DeepEqual(got, []string{"EchoesVault/.echoes-vault.json:marker-missing"}) {
		t.Errorf("missing marker: %q", got)
	}
}

// An unmerged vault path in the index is reported once, whatever the
// number of stages, and its stages are not validated as content.
func TestCheckUnmerged(t *testing.T) {
	sb, e := checkRepo(t)
	root := e.WS.Root
	page := filepath.Join(root, "EchoesVault/pages/good.md")
	sb.Git(root, "checkout", "-qb", "side")
	os.WriteFile(page, []byte(strings.Replace(goodPage, "Body.", "Side.", 1)), 0o644)
	sb.Git(root, "commit", "-qam", "side")
	sb.Git(root, "checkout", "-q", "main")
	os.WriteFile(page, []byte(strings.Replace(goodPage, "Body.", "Main.", 1)), 0o644)
	sb.Git(root, "commit", "-qam", "main")
	if _, err := sb.Run(root, nil, nil, "merge", "side"); err == nil {
		t.Fatal("merge should conflict")
	}
	res := mustCheck(t, e, CheckOptions{Source: CheckStaged})
	if got := rules(res); !reflect.DeepEqual(got, []string{"EchoesVault/pages/good.md:unmerged-path"}) {
		t.Errorf("staged: %q", got)
	}
}

func TestCheckErrorsFailClosed(t *testing.T) {
	_, e := checkRepo(t)
	if _, err := Check(e, CheckOptions{Source: CheckRev, Rev: "no-such-rev"}); err == nil ||
		!strings.HasPrefix(err.Error(), "Cannot read revision 'no-such-rev': ") {
		t.Errorf("unknown revision: %v", err)
	}
	plain, err := gitvault.Open(gitvault.Options{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Check(plain, CheckOptions{Source: CheckStaged}); err == nil || !strings.HasPrefix(err.Error(), "Not inside a Git work tree: ") {
		t.Errorf("staged outside git: %v", err)
	}
	if res := mustCheck(t, plain, CheckOptions{}); !res.OK() || res.Vault {
		t.Errorf("work tree without a vault: %+v", res)
	}
}

// foldsCase reports whether the file system holding the existing file p
// finds it under an upper-cased base name too.
func foldsCase(t *testing.T, p string) bool {
	t.Helper()
	upper := filepath.Join(filepath.Dir(p), strings.ToUpper(filepath.Base(p)))
	if upper == p {
		t.Fatalf("foldsCase: %s has no lower-case letters", p)
	}
	_, err := os.Lstat(upper)
	return err == nil
}
