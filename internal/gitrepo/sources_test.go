package gitrepo

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// Sources names every file outside the work tree that Open read: a caller
// that stamps them (the viewer's overview) must learn of a change to an
// include, to core.excludesFile or to the index, and of the creation of a
// file that was missing.
func TestSourcesNameWhatOpenRead(t *testing.T) {
	sb := gitrepotest.New(t)
	top := committedRepo(t, sb)
	dir := realTemp(t)
	inc := filepath.Join(dir, "included.cfg")
	excl := filepath.Join(dir, "ignore-rules")
	testenv.WriteFile(t, inc, "[core]\n\texcludesFile = "+configPath(excl)+"\n")
	if underWineGit() {
		// Through the bridge `git config` would store the Unix path of
		// inc, which is no absolute path here: the entry is written as
		// Git for Windows writes it. No git reads the config afterwards.
		appendFile(t, filepath.Join(top, ".git", "config"), "[include]\n\tpath = "+configPath(inc)+"\n")
	} else {
		sb.Git(top, "config", "include.path", inc)
	}
	r, err := Open(top)
	if err != nil {
		t.Fatal(err)
	}
	got := r.Sources()
	gitDir := filepath.Join(top, ".git")
	for _, want := range []string{
		filepath.Join(gitDir, "HEAD"), filepath.Join(gitDir, "commondir"), filepath.Join(gitDir, "config"),
		inc, excl, // excl does not exist: its creation must count
		filepath.Join(gitDir, "info", "exclude"), r.IndexFile(),
	} {
		if !slices.Contains(got, want) {
			t.Errorf("Sources() = %q, lacks %q", got, want)
		}
	}
	// The slice is the caller's.
	got[0] = "changed"
	if r.Sources()[0] == "changed" {
		t.Error("Sources returns the Repo's own slice")
	}
}
