package gitvault

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// The ECC memory vault's committed layout (ecc-seed §surfaces): the team
// scope is reviewed and committed; the project scope is repo-local operator
// context behind its own fail-closed .gitignore (ecc-conformance §4.2),
// which is the one file of it that may be committed.
const (
	memoryPrefix        = ".ecc/memory/"
	MemoryTeamPrefix    = memoryPrefix + "team/"
	memoryProjectPrefix = memoryPrefix + "project/"
	memoryProjectGuard  = memoryProjectPrefix + ".gitignore"
	runtimePrefix       = ".echoes-vault/"
)

// gateDirs are the directories, besides EchoesVault/, whose Git entries the
// gate examines for files that must not be committed; the legacy state
// files of LocalOnlyFiles are looked up one by one.
var gateDirs = []string{strings.TrimSuffix(runtimePrefix, "/"), strings.TrimSuffix(memoryPrefix, "/")}

// isLocalOnly reports whether the workspace-relative path p names a file
// that must never be committed: the fixed local-only files (echoes-conformance §20.2), the
// runtime's local cache directory outside Git (LocalCacheDir), and the
// temporary files of an interrupted atomic write in a managed directory
// (echoes-conformance §5 `.<target>.<random>.tmp`, ecc-conformance §9.1
// `.ecc-memory-<pid>-<uuid>.tmp`: both engines name them with a leading
// '.' and a trailing ".tmp").
func isLocalOnly(p string) bool {
	for _, l := range LocalOnlyFiles {
		if p == l {
			return true
		}
	}
	if strings.HasPrefix(p, runtimePrefix+"cache/") {
		return true
	}
	if !strings.HasPrefix(p, VaultPrefix) && !strings.HasPrefix(p, runtimePrefix) && !strings.HasPrefix(p, memoryPrefix) {
		return false
	}
	base := path.Base(p)
	return len(base) > len("..tmp") && base[0] == '.' && strings.HasSuffix(base, ".tmp")
}

// isProjectMemory reports whether p is a file of the project memory scope
// other than its .gitignore guard.
func isProjectMemory(p string) bool {
	return strings.HasPrefix(p, memoryProjectPrefix) && p != memoryProjectGuard
}

// GateView is what the gate reads outside EchoesVault/ (see
// Snapshot.Gate): the team memories of the snapshot and the files the
// source's Git view must not hold.
type GateView struct {
	Team       []SnapFile   // .ecc/memory/team/**, sorted by path
	TeamLinks  []string     // symlinks below .ecc/memory/team/ (never read)
	ProjectMem []string     // project-scope memories in the index or commit
	Unmerged   []string     // unmerged paths below .ecc/memory/ (index only)
	Documents  int          // team files read as memory documents (set by the gate's memory findings)
	Secrets    SecretConfig // the repository's allowlist files for the secret rule (snapshot_secrets.go)
}

// classify records one Git entry of the source's view: a local-only file,
// a project memory, or (when team is set) a team memory file.
func (s *Snapshot) classify(p string, mode gitrepoMode, read func() ([]byte, error), team bool) {
	switch {
	case isLocalOnly(p):
		s.LocalOnly = append(s.LocalOnly, p)
	case isProjectMemory(p):
		s.Gate.ProjectMem = append(s.Gate.ProjectMem, p)
	case team && strings.HasPrefix(p, MemoryTeamPrefix):
		if mode.symlink {
			s.Gate.TeamLinks = append(s.Gate.TeamLinks, p)
		} else {
			s.Gate.Team = append(s.Gate.Team, SnapFile{Path: p, Regular: mode.Regular, Read: read})
		}
	}
}

// gitrepoMode is the part of an entry's mode the gate needs.
type gitrepoMode struct{ Regular, symlink bool }

func modeOf(e gitrepo.Entry) gitrepoMode {
	return gitrepoMode{Regular: IsBlobMode(e.Mode), symlink: e.Mode == filemode.Symlink}
}

// indexGate reads the gate's view of the index: the local-only files and
// project memories it holds anywhere, and, when files is set (the staged
// source), the team memories. vault holds the index entries below
// EchoesVault/ when the caller has them already (nil: listed here).
func (s *Snapshot) indexGate(repo *gitrepo.Repo, vault []gitrepo.Entry, files bool) error {
	if vault == nil {
		var err error
		if vault, err = repo.StagedFiles(strings.TrimSuffix(VaultPrefix, "/")); err != nil {
			return err
		}
	}
	lists := [][]gitrepo.Entry{vault}
	for _, d := range gateDirs {
		entries, err := repo.StagedFiles(d)
		if err != nil {
			return err
		}
		lists = append(lists, entries)
	}
	if files {
		if err := s.Gate.Secrets.readEntries(repo.StagedFiles); err != nil {
			return err
		}
	}
	for _, p := range LocalOnlyFiles {
		if strings.HasPrefix(p, VaultPrefix) || strings.HasPrefix(p, runtimePrefix) {
			continue // listed with their directory
		}
		entries, err := repo.StagedFiles(p)
		if err != nil {
			return err
		}
		lists = append(lists, entries)
	}
	read := serialReads()
	seen := map[string]bool{}
	for _, entries := range lists {
		for _, e := range entries {
			// An intent-to-add entry is tracked but contributes nothing to
			// the next commit; an unmerged path appears once per stage.
			if e.IntentToAdd || seen[e.Path] {
				continue
			}
			seen[e.Path] = true
			if e.Stage != 0 {
				if isLocalOnly(e.Path) {
					s.LocalOnly = append(s.LocalOnly, e.Path)
				} else if strings.HasPrefix(e.Path, memoryPrefix) {
					s.Gate.Unmerged = append(s.Gate.Unmerged, e.Path)
				}
				continue
			}
			s.classify(e.Path, modeOf(e), read(e.Read), files)
		}
	}
	return nil
}

// treeGate reads the gate's view of a commit tree: the vault's local-only
// files (already in s.Files: the defect issue 9 fixed first was that
// --rev never looked there), and, from the other directories, the
// local-only files, project memories and team memories.
func (s *Snapshot) treeGate(repo *gitrepo.Repo, rev string) error {
	for _, f := range s.Files {
		if isLocalOnly(f.Path) {
			s.LocalOnly = append(s.LocalOnly, f.Path)
		}
	}
	s.Gate.Secrets.Commit = rev
	if err := s.Gate.Secrets.readEntries(func(p string) ([]gitrepo.Entry, error) { return repo.TreeFiles(rev, p) }); err != nil {
		return err
	}
	read := serialReads()
	visit := func(entries []gitrepo.Entry) {
		for _, e := range entries {
			s.classify(e.Path, modeOf(e), read(e.Read), true)
		}
	}
	for _, d := range gateDirs {
		entries, err := repo.TreeFiles(rev, d)
		if err != nil {
			return err
		}
		visit(entries)
	}
	for _, p := range LocalOnlyFiles {
		if strings.HasPrefix(p, VaultPrefix) || strings.HasPrefix(p, runtimePrefix) {
			continue
		}
		entries, err := repo.TreeFiles(rev, p)
		if err != nil {
			return err
		}
		if len(entries) == 1 && entries[0].Path == p {
			visit(entries)
		}
	}
	return nil
}

// workTreeGate reads the team memories of the work tree, without following
// symlinks. The local-only files and project memories on disk are
// expected; the index view (indexGate) says whether Git tracks them.
func (s *Snapshot) workTreeGate(ws *Workspace) error {
	if err := s.Gate.Secrets.readWorkTree(ws); err != nil {
		return err
	}
	dir := filepath.Join(ws.Root, filepath.FromSlash(MemoryTeamPrefix))
	if !fsx.IsDirNoFollow(dir) {
		return nil
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(ws.Rel(p))
		if p != dir && fsx.IsLinkEntry(filepath.Dir(p), d) {
			s.Gate.TeamLinks = append(s.Gate.TeamLinks, rel)
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		s.Gate.Team = append(s.Gate.Team, SnapFile{Path: rel, Regular: d.Type().IsRegular(),
			Read: func() ([]byte, error) { return fsx.ReadFile(p) }})
		return nil
	})
	if err != nil {
		return fmt.Errorf("walk %s: %w", dir, err)
	}
	return nil
}
