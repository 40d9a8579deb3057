package memory

import (
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// RevRoots returns roots whose project and team scopes are those of
// .ecc/memory/ in the commit rev of the repository holding
// roots.ProjectRoot (issue 9: as-of reads), read from the object store
// through gitrepo. It writes nothing. A repository or revision that cannot
// be read is a CodeInvalid error (the CLI's exit 2).
func RevRoots(roots *Roots, rev string) (*Roots, error) {
	bad := func(msg string) error { return &Error{Code: CodeInvalid, Message: msg} }
	dir, err := filepath.EvalSymlinks(roots.ProjectRoot)
	if err != nil {
		return nil, bad("Not inside a Git work tree: " + roots.ProjectRoot)
	}
	top, ok, err := gitrepo.Discover(dir)
	if err != nil || !ok {
		return nil, bad("Not inside a Git work tree: " + roots.ProjectRoot)
	}
	repo, err := gitrepo.Open(top)
	if err != nil {
		return nil, bad("Cannot read the Git repository: " + err.Error())
	}
	h, err := repo.ResolveCommit(rev)
	if err != nil {
		return nil, bad("Unknown revision: " + rev)
	}
	c, err := repo.CommitInfo(h)
	if err != nil {
		return nil, bad("Cannot read revision " + rev + ": " + err.Error())
	}
	entries, err := repo.TreeFilesAt(c.Tree, ".ecc/memory")
	if err != nil {
		return nil, bad("Cannot read revision " + rev + ": " + err.Error())
	}
	var files []SnapshotFile
	for _, e := range entries {
		rel, ok := strings.CutPrefix(e.Path, ".ecc/memory/")
		if !ok {
			return nil, &Error{Code: CodeUnsafePath, Message: "Refusing to access memory through symlink root: .ecc/memory at revision " + rev}
		}
		files = append(files, SnapshotFile{Path: rel, Regular: e.Mode == filemode.Regular || e.Mode == filemode.Executable || e.Mode == filemode.Deprecated,
			Symlink: e.Mode == filemode.Symlink, Read: e.Read})
	}
	return SnapshotRoots(roots, "revision "+rev, files), nil
}
