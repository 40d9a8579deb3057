package gitvault

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// SnapFile is one file of a snapshot below EchoesVault/.
type SnapFile struct {
	Path    string // slash-separated, relative to the top
	Regular bool   // a regular (possibly executable) file: not a symlink, submodule or unmerged entry
	Read    func() ([]byte, error)
}

// Snapshot is a read-only view of the vault's files from one source: every
// file below EchoesVault/, plus what the source's Git view says about the
// local-only files (echoes-conformance §20.2) and unmerged paths. It implements pageSource, so
// the index renderer and the check read pages the same way from every
// source.
//
// Its fields are read by the gate (gitvault/gate) and the review
// (gitvault/review); only this package's readers fill them.
type Snapshot struct {
	Files     []SnapFile     // sorted by path
	Pages     []string       // page file names in listing order (echoes-conformance §8.2)
	PageFile  map[string]int // page name -> index into Files
	LocalOnly []string       // local-only files present in the index or commit
	Unmerged  []string       // unmerged vault paths (index only)
	// LocalVerb says how a local-only file got into the snapshot, for messages.
	LocalVerb string
	Gate      GateView // what the gate reads outside EchoesVault/ (snapshot_gate.go)
}

const VaultPrefix = "EchoesVault/"

// PageNames lists the snapshot's pages in listing order: direct regular
// children of EchoesVault/pages/ with a case-insensitive .md suffix.
func (s *Snapshot) PageNames() ([]string, error) { return s.Pages, nil }

// ReadPage returns the bytes of one listed page.
func (s *Snapshot) ReadPage(name string) ([]byte, error) {
	i, ok := s.PageFile[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: VaultPrefix + "pages/" + name, Err: fs.ErrNotExist}
	}
	return s.Files[i].Read()
}

// finish sorts the files and derives the page listing.
func (s *Snapshot) finish() {
	sort.Slice(s.Files, func(i, j int) bool { return s.Files[i].Path < s.Files[j].Path })
	s.PageFile = map[string]int{}
	for i, f := range s.Files {
		rest, ok := strings.CutPrefix(f.Path, VaultPrefix+"pages/")
		if !ok || !f.Regular || strings.Contains(rest, "/") || !IsPageFileName(rest) {
			continue
		}
		s.Pages = append(s.Pages, rest)
		s.PageFile[rest] = i
	}
	sortPageNames(s.Pages)
}

// File returns the snapshot's file at the slash-separated path, if any.
func (s *Snapshot) File(path string) (SnapFile, bool) {
	i := sort.Search(len(s.Files), func(i int) bool { return s.Files[i].Path >= path })
	if i < len(s.Files) && s.Files[i].Path == path {
		return s.Files[i], true
	}
	return SnapFile{}, false
}

// HasVault reports whether the snapshot holds any vault file or unmerged vault path.
func (s *Snapshot) HasVault() bool { return len(s.Files) > 0 || len(s.Unmerged) > 0 }

// WorkTreeSnapshot walks the work tree's EchoesVault/ without following
// symlinks. repo (nil outside Git) supplies the index view of local-only
// files: on disk they are expected, tracked they are a problem.
func WorkTreeSnapshot(ws *Workspace, repo *gitrepo.Repo) (*Snapshot, error) {
	s := &Snapshot{LocalVerb: "tracked by Git"}
	if fsx.IsDirNoFollow(ws.Vault) {
		err := filepath.WalkDir(ws.Vault, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			rel := filepath.ToSlash(ws.Rel(p))
			s.Files = append(s.Files, SnapFile{Path: rel, Regular: d.Type().IsRegular(),
				Read: func() ([]byte, error) { return fsx.ReadFile(p) }})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("walk %s: %w", ws.Vault, err)
		}
	}
	if err := s.workTreeGate(ws); err != nil {
		return nil, err
	}
	if repo != nil {
		if err := s.indexView(repo, false); err != nil {
			return nil, err
		}
	}
	s.finish()
	return s, nil
}

// IndexSnapshot reads the vault from the Git index ($GIT_INDEX_FILE when
// set, as during `git commit -a` or `git commit <paths>`): the blobs that
// the next commit will hold, whatever the work tree says.
func IndexSnapshot(repo *gitrepo.Repo) (*Snapshot, error) {
	s := &Snapshot{LocalVerb: "staged for commit"}
	if err := s.indexView(repo, true); err != nil {
		return nil, err
	}
	s.finish()
	return s, nil
}

// indexView records the local-only files the index holds and, when files
// is set, takes the vault's files from the index.
func (s *Snapshot) indexView(repo *gitrepo.Repo, files bool) error {
	if !files {
		return s.indexGate(repo, nil, false)
	}
	entries, err := repo.StagedFiles(strings.TrimSuffix(VaultPrefix, "/"))
	if err != nil {
		return err
	}
	if err := s.indexGate(repo, entries, true); err != nil {
		return err
	}
	read := serialReads()
	for _, e := range entries {
		if !strings.HasPrefix(e.Path, VaultPrefix) {
			continue
		}
		if e.Stage != 0 {
			if n := len(s.Unmerged); n == 0 || s.Unmerged[n-1] != e.Path {
				s.Unmerged = append(s.Unmerged, e.Path)
			}
			continue
		}
		// An intent-to-add entry is tracked but contributes nothing to
		// the next commit.
		if e.IntentToAdd {
			continue
		}
		s.Files = append(s.Files, SnapFile{Path: e.Path, Regular: IsBlobMode(e.Mode), Read: read(e.Read)})
	}
	return nil
}

// TreeSnapshot reads the vault from the tree of rev, straight from the
// object store: no checkout, no index.
func TreeSnapshot(repo *gitrepo.Repo, rev string) (*Snapshot, error) {
	s := &Snapshot{LocalVerb: "committed"}
	// One snapshot is one commit: the vault tree and the gate's other
	// directories are read by the commit id, so a ref that moves meanwhile
	// (a fetch) cannot mix two commits. A revision that does not resolve
	// to a commit is passed on as given, for TreeFiles' own error.
	if h, err := repo.ResolveCommit(rev); err == nil {
		rev = h
	}
	entries, err := repo.TreeFiles(rev, strings.TrimSuffix(VaultPrefix, "/"))
	if err != nil {
		return nil, err
	}
	read := serialReads()
	for _, e := range entries {
		if strings.HasPrefix(e.Path, VaultPrefix) {
			s.Files = append(s.Files, SnapFile{Path: e.Path, Regular: IsBlobMode(e.Mode), Read: read(e.Read)})
		}
	}
	if err := s.treeGate(repo, rev); err != nil {
		return nil, err
	}
	s.finish()
	return s, nil
}

func IsBlobMode(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Deprecated
}

// serialReads wraps object-store readers of one snapshot behind a mutex:
// go-git's file-system storage does not promise concurrent reads, while
// the validation parses pages in parallel.
func serialReads() func(func() ([]byte, error)) func() ([]byte, error) {
	var mu sync.Mutex
	return func(read func() ([]byte, error)) func() ([]byte, error) {
		return func() ([]byte, error) {
			mu.Lock()
			defer mu.Unlock()
			return read()
		}
	}
}
