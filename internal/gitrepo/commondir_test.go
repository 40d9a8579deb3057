package gitrepo

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

// CommonDirAt agrees with Open(top).CommonDir() and with git rev-parse
// --git-common-dir, in a main work tree and in a linked one.
func TestCommonDirAtMatchesOpenAndGit(t *testing.T) {
	sb := gitrepotest.New(t)
	top := committedRepo(t, sb)
	linked := filepath.Join(filepath.Dir(top), "linked")
	sb.Git(top, "worktree", "add", "-q", linked)
	relativeWorktreeGitFile(t, linked)
	for _, wt := range []string{top, linked} {
		got, err := CommonDirAt(wt)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Open(wt)
		if err != nil {
			t.Fatal(err)
		}
		if got != r.CommonDir() {
			t.Errorf("%s: CommonDirAt = %s, Open.CommonDir = %s", wt, got, r.CommonDir())
		}
		want := hostPath(strings.TrimSpace(sb.Git(wt, "rev-parse", "--path-format=absolute", "--git-common-dir")))
		if w, err := filepath.EvalSymlinks(want); err == nil {
			want = w
		}
		if got != want {
			t.Errorf("%s: CommonDirAt = %s, git = %s", wt, got, want)
		}
	}
	if _, err := CommonDirAt(filepath.Join(top, "a")); err == nil {
		t.Error("CommonDirAt of a subdirectory: no error")
	}
}
