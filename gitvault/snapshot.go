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

// snapFile is one file of a snapshot below EchoesVault/.
type snapFile struct {
	path    string // slash-separated, relative to the top
	regular bool   // a regular (possibly executable) file: not a symlink, submodule or unmerged entry
	read    func() ([]byte, error)
}

// vaultSnapshot is a read-only view of the vault's files from one source: every
// file below EchoesVault/, plus what the source's Git view says about the
// local-only files (echoes-conformance §20.2) and unmerged paths. It implements pageSource, so
// the index renderer and the check read pages the same way from every
// source.
type vaultSnapshot struct {
	files     []snapFile     // sorted by path
	pages     []string       // page file names in listing order (echoes-conformance §8.2)
	pageFile  map[string]int // page name -> index into files
	localOnly []string       // local-only files present in the index or commit
	unmerged  []string       // unmerged vault paths (index only)
	// localVerb says how a local-only file got into the snapshot, for messages.
	localVerb string
	gate      gateView    // what the gate reads outside EchoesVault/ (check_gate.go)
	secrets   *secretGate // the secret rule of this snapshot (check_secretscan.go)
}

const vaultPrefix = "EchoesVault/"

// PageNames lists the snapshot's pages in listing order: direct regular
// children of EchoesVault/pages/ with a case-insensitive .md suffix.
func (s *vaultSnapshot) PageNames() ([]string, error) { return s.pages, nil }

// ReadPage returns the bytes of one listed page.
func (s *vaultSnapshot) ReadPage(name string) ([]byte, error) {
	i, ok := s.pageFile[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: vaultPrefix + "pages/" + name, Err: fs.ErrNotExist}
	}
	return s.files[i].read()
}

// finish sorts the files and derives the page listing.
func (s *vaultSnapshot) finish() {
	sort.Slice(s.files, func(i, j int) bool { return s.files[i].path < s.files[j].path })
	s.pageFile = map[string]int{}
	for i, f := range s.files {
		rest, ok := strings.CutPrefix(f.path, vaultPrefix+"pages/")
		if !ok || !f.regular || strings.Contains(rest, "/") || !isPageFileName(rest) {
			continue
		}
		s.pages = append(s.pages, rest)
		s.pageFile[rest] = i
	}
	sortPageNames(s.pages)
}

func (s *vaultSnapshot) file(path string) (snapFile, bool) {
	i := sort.Search(len(s.files), func(i int) bool { return s.files[i].path >= path })
	if i < len(s.files) && s.files[i].path == path {
		return s.files[i], true
	}
	return snapFile{}, false
}

func (s *vaultSnapshot) hasVault() bool { return len(s.files) > 0 || len(s.unmerged) > 0 }

// workTreeSnapshot walks the work tree's EchoesVault/ without following
// symlinks. repo (nil outside Git) supplies the index view of local-only
// files: on disk they are expected, tracked they are a problem.
func workTreeSnapshot(ws *Workspace, repo *gitrepo.Repo) (*vaultSnapshot, error) {
	s := &vaultSnapshot{localVerb: "tracked by Git"}
	if fsx.IsDirNoFollow(ws.Vault) {
		err := filepath.WalkDir(ws.Vault, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			rel := filepath.ToSlash(ws.Rel(p))
			s.files = append(s.files, snapFile{path: rel, regular: d.Type().IsRegular(),
				read: func() ([]byte, error) { return fsx.ReadFile(p) }})
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

// indexSnapshot reads the vault from the Git index ($GIT_INDEX_FILE when
// set, as during `git commit -a` or `git commit <paths>`): the blobs that
// the next commit will hold, whatever the work tree says.
func indexSnapshot(repo *gitrepo.Repo) (*vaultSnapshot, error) {
	s := &vaultSnapshot{localVerb: "staged for commit"}
	if err := s.indexView(repo, true); err != nil {
		return nil, err
	}
	s.finish()
	return s, nil
}

// indexView records the local-only files the index holds and, when files
// is set, takes the vault's files from the index.
func (s *vaultSnapshot) indexView(repo *gitrepo.Repo, files bool) error {
	if !files {
		return s.indexGate(repo, nil, false)
	}
	entries, err := repo.StagedFiles(strings.TrimSuffix(vaultPrefix, "/"))
	if err != nil {
		return err
	}
	if err := s.indexGate(repo, entries, true); err != nil {
		return err
	}
	read := serialReads()
	for _, e := range entries {
		if !strings.HasPrefix(e.Path, vaultPrefix) {
			continue
		}
		if e.Stage != 0 {
			if n := len(s.unmerged); n == 0 || s.unmerged[n-1] != e.Path {
				s.unmerged = append(s.unmerged, e.Path)
			}
			continue
		}
		// An intent-to-add entry is tracked but contributes nothing to
		// the next commit.
		if e.IntentToAdd {
			continue
		}
		s.files = append(s.files, snapFile{path: e.Path, regular: isBlobMode(e.Mode), read: read(e.Read)})
	}
	return nil
}

// treeSnapshot reads the vault from the tree of rev, straight from the
// object store: no checkout, no index.
func treeSnapshot(repo *gitrepo.Repo, rev string) (*vaultSnapshot, error) {
	s := &vaultSnapshot{localVerb: "committed"}
	// One snapshot is one commit: the vault tree and the gate's other
	// directories are read by the commit id, so a ref that moves meanwhile
	// (a fetch) cannot mix two commits. A revision that does not resolve
	// to a commit is passed on as given, for TreeFiles' own error.
	if h, err := repo.ResolveCommit(rev); err == nil {
		rev = h
	}
	entries, err := repo.TreeFiles(rev, strings.TrimSuffix(vaultPrefix, "/"))
	if err != nil {
		return nil, err
	}
	read := serialReads()
	for _, e := range entries {
		if strings.HasPrefix(e.Path, vaultPrefix) {
			s.files = append(s.files, snapFile{path: e.Path, regular: isBlobMode(e.Mode), read: read(e.Read)})
		}
	}
	if err := s.treeGate(repo, rev); err != nil {
		return nil, err
	}
	s.finish()
	return s, nil
}

func isBlobMode(m filemode.FileMode) bool {
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
