package gate

import (
	"github.com/git-echoes/git-echoes/gitvault"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// localOnlyPaths are files that must never be committed
// (echoes-conformance §20.2; echoes-conformance §5 and ecc-conformance §9.1
// temporary files; the runtime's local cache directory outside Git), the
// vault's own index.md included: the three sources must all refuse them.
var localOnlyPaths = []string{
	".codex/echoes-vault-state.json",
	".ecc/memory/team/notes/.ecc-memory-123-0f0e0d0c-0b0a-4908-8706-050403020100.tmp",
	".echoes-vault/cache/pages/data",
	".echoes-vault/lock",
	".echoes-vault/state.json",
	".opencode/echoes-state.json",
	"EchoesVault/.index.md.k3x_9q2a.tmp",
	"EchoesVault/index.md",
	"EchoesVault/pages/.good.md.abcdefgh.tmp",
}

// A commit holding local-only files fails the gate from every source: the
// work tree (checked against the index), the index and the commit. The
// defect this pins: a force-added EchoesVault/index.md passed --rev.
func TestCheckLocalOnlyEverySource(t *testing.T) {
	sb, e := checkRepo(t)
	root := e.WS.Root
	if _, err := e.RebuildIndex(); err != nil {
		t.Fatal(err)
	}
	for _, p := range localOnlyPaths {
		if p == "EchoesVault/index.md" {
			continue // written by the engine
		}
		testenv.WriteFile(t, filepath.Join(root, filepath.FromSlash(p)), "local\n")
	}
	sb.Git(root, "add", "-f", "--", ".")
	sb.Git(root, "commit", "--no-verify", "-qm", "local files")
	var want []string
	for _, p := range localOnlyPaths {
		want = append(want, p+":"+ruleLocalOnlyCommitted)
	}
	for _, src := range []CheckSource{CheckWorkTree, CheckStaged, CheckRev} {
		res := mustCheck(t, e, CheckOptions{Source: src, Rev: "HEAD"})
		if got := rules(res); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: findings\n got %q\nwant %q", src, got, want)
		}
		for _, f := range res.Findings {
			if !strings.HasSuffix(f.Message, "(run: git rm --cached -- "+gitvault.ShellQuote(f.Path)+")") {
				t.Errorf("%v: %s: message %q has no remedy", src, f.Path, f.Message)
			}
		}
	}
	// Removed from the index (kept on disk): the work tree and the index
	// pass; the commit still holds them.
	sb.Git(root, "rm", "-rq", "--cached", "--", ".codex", ".ecc", ".echoes-vault/cache", ".echoes-vault/lock",
		".echoes-vault/state.json", ".opencode", "EchoesVault/.index.md.k3x_9q2a.tmp", "EchoesVault/index.md",
		"EchoesVault/pages/.good.md.abcdefgh.tmp")
	for _, src := range []CheckSource{CheckWorkTree, CheckStaged} {
		if res := mustCheck(t, e, CheckOptions{Source: src}); !res.OK() {
			t.Errorf("%v after git rm --cached: %q", src, rules(res))
		}
	}
	if res := mustCheck(t, e, CheckOptions{Source: CheckRev, Rev: "HEAD"}); len(res.Findings) != len(localOnlyPaths) {
		t.Errorf("rev HEAD after git rm --cached: %q", rules(res))
	}
	sb.Git(root, "commit", "--no-verify", "-qm", "untrack")
	if res := mustCheck(t, e, CheckOptions{Source: CheckRev, Rev: "HEAD"}); !res.OK() {
		t.Errorf("rev HEAD after the fix: %q", rules(res))
	}
	// The files are still on disk: the work tree check does not mind them.
	if _, err := os.Stat(filepath.Join(root, "EchoesVault/index.md")); err != nil {
		t.Fatal(err)
	}
}
