package gitvault

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/frontmatter"
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// The ECC memory vault's committed layout (ecc-seed §surfaces): the team
// scope is reviewed and committed; the project scope is repo-local operator
// context behind its own fail-closed .gitignore (ecc-conformance §4.2),
// which is the one file of it that may be committed.
const (
	memoryPrefix        = ".ecc/memory/"
	memoryTeamPrefix    = memoryPrefix + "team/"
	memoryProjectPrefix = memoryPrefix + "project/"
	memoryProjectGuard  = memoryProjectPrefix + ".gitignore"
	runtimePrefix       = ".echoes-vault/"
)

// gateDirs are the directories, besides EchoesVault/, whose Git entries the
// gate examines for files that must not be committed; the legacy state
// files of localOnlyFiles are looked up one by one.
var gateDirs = []string{strings.TrimSuffix(runtimePrefix, "/"), strings.TrimSuffix(memoryPrefix, "/")}

// isLocalOnly reports whether the workspace-relative path p names a file
// that must never be committed: the fixed local-only files (echoes-conformance §20.2), the
// runtime's local cache directory outside Git (LocalCacheDir), and the
// temporary files of an interrupted atomic write in a managed directory
// (echoes-conformance §5 `.<target>.<random>.tmp`, ecc-conformance §9.1
// `.ecc-memory-<pid>-<uuid>.tmp`: both engines name them with a leading
// '.' and a trailing ".tmp").
func isLocalOnly(p string) bool {
	for _, l := range localOnlyFiles {
		if p == l {
			return true
		}
	}
	if strings.HasPrefix(p, runtimePrefix+"cache/") {
		return true
	}
	if !strings.HasPrefix(p, vaultPrefix) && !strings.HasPrefix(p, runtimePrefix) && !strings.HasPrefix(p, memoryPrefix) {
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

// gateView is what the gate reads outside EchoesVault/ (see
// vaultSnapshot.gate): the team memories of the snapshot and the files the
// source's Git view must not hold.
type gateView struct {
	team       []snapFile   // .ecc/memory/team/**, sorted by path
	teamLinks  []string     // symlinks below .ecc/memory/team/ (never read)
	projectMem []string     // project-scope memories in the index or commit
	unmerged   []string     // unmerged paths below .ecc/memory/ (index only)
	documents  int          // team files read as memory documents (set by memoryFindings)
	secrets    secretConfig // the repository's allowlist files (check_secretscan.go)
}

// classify records one Git entry of the source's view: a local-only file,
// a project memory, or (when team is set) a team memory file.
func (s *vaultSnapshot) classify(p string, mode gitrepoMode, read func() ([]byte, error), team bool) {
	switch {
	case isLocalOnly(p):
		s.localOnly = append(s.localOnly, p)
	case isProjectMemory(p):
		s.gate.projectMem = append(s.gate.projectMem, p)
	case team && strings.HasPrefix(p, memoryTeamPrefix):
		if mode.symlink {
			s.gate.teamLinks = append(s.gate.teamLinks, p)
		} else {
			s.gate.team = append(s.gate.team, snapFile{path: p, regular: mode.regular, read: read})
		}
	}
}

// gitrepoMode is the part of an entry's mode the gate needs.
type gitrepoMode struct{ regular, symlink bool }

func modeOf(e gitrepo.Entry) gitrepoMode {
	return gitrepoMode{regular: isBlobMode(e.Mode), symlink: e.Mode == filemode.Symlink}
}

// indexGate reads the gate's view of the index: the local-only files and
// project memories it holds anywhere, and, when files is set (the staged
// source), the team memories. vault holds the index entries below
// EchoesVault/ when the caller has them already (nil: listed here).
func (s *vaultSnapshot) indexGate(repo *gitrepo.Repo, vault []gitrepo.Entry, files bool) error {
	if vault == nil {
		var err error
		if vault, err = repo.StagedFiles(strings.TrimSuffix(vaultPrefix, "/")); err != nil {
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
	for _, p := range localOnlyFiles {
		if strings.HasPrefix(p, vaultPrefix) || strings.HasPrefix(p, runtimePrefix) {
			continue // listed with their directory
		}
		entries, err := repo.StagedFiles(p)
		if err != nil {
			return err
		}
		lists = append(lists, entries)
	}
	if files {
		if err := s.gate.secrets.readEntries(repo.StagedFiles); err != nil {
			return err
		}
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
					s.localOnly = append(s.localOnly, e.Path)
				} else if strings.HasPrefix(e.Path, memoryPrefix) {
					s.gate.unmerged = append(s.gate.unmerged, e.Path)
				}
				continue
			}
			s.classify(e.Path, modeOf(e), read(e.Read), files)
		}
	}
	return nil
}

// treeGate reads the gate's view of a commit tree: the vault's local-only
// files (already in s.files: the defect issue 9 fixed first was that
// --rev never looked there), and, from the other directories, the
// local-only files, project memories and team memories.
func (s *vaultSnapshot) treeGate(repo *gitrepo.Repo, rev string) error {
	for _, f := range s.files {
		if isLocalOnly(f.path) {
			s.localOnly = append(s.localOnly, f.path)
		}
	}
	s.gate.secrets.commit = rev
	if err := s.gate.secrets.readEntries(func(p string) ([]gitrepo.Entry, error) { return repo.TreeFiles(rev, p) }); err != nil {
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
	for _, p := range localOnlyFiles {
		if strings.HasPrefix(p, vaultPrefix) || strings.HasPrefix(p, runtimePrefix) {
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
func (s *vaultSnapshot) workTreeGate(ws *Workspace) error {
	if err := s.gate.secrets.readWorkTree(ws); err != nil {
		return err
	}
	dir := filepath.Join(ws.Root, filepath.FromSlash(memoryTeamPrefix))
	if !fsx.IsDirNoFollow(dir) {
		return nil
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(ws.Rel(p))
		if p != dir && fsx.IsLinkEntry(filepath.Dir(p), d) {
			s.gate.teamLinks = append(s.gate.teamLinks, rel)
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		s.gate.team = append(s.gate.team, snapFile{path: rel, regular: d.Type().IsRegular(),
			read: func() ([]byte, error) { return fsx.ReadFile(p) }})
		return nil
	})
	if err != nil {
		return fmt.Errorf("walk %s: %w", dir, err)
	}
	return nil
}

// memoryFindings reports the ECC memory vault's problems in the snapshot:
// project-scope memories it holds (they must never be committed), unmerged
// memory paths, and the team scope validated as the memory readers and
// doctor read it (memory.CheckFiles).
func (s *vaultSnapshot) memoryFindings() []Finding {
	var out []Finding
	for _, p := range s.gate.projectMem {
		out = append(out, Finding{Path: p, Rule: ruleMemoryProjectCommitted,
			Message: "project-scope ECC memory is " + s.localVerb + "; project memories are local operator context " +
				"and must never be committed (run: git rm --cached -- " + shellQuote(p) + ")"})
	}
	for _, p := range s.gate.unmerged {
		out = append(out, Finding{Path: p, Rule: ruleUnmergedPath,
			Message: "unresolved merge conflict: resolve the file, then git add it"})
	}
	if len(s.gate.team) == 0 && len(s.gate.teamLinks) == 0 {
		return out
	}
	// Team memories are checked out by every clone, Windows ones included.
	out = append(out, windowsNameFindings(func(report func(string)) {
		for _, f := range s.gate.team {
			report(f.path)
		}
		for _, p := range s.gate.teamLinks {
			report(p)
		}
	})...)
	files := make([]memory.GateFile, 0, len(s.gate.team)+len(s.gate.teamLinks))
	// The documents CheckFiles reads are kept for the conflict-marker
	// search (a conflict inside a body still parses as a memory).
	read := make([][]byte, len(s.gate.team))
	for i, f := range s.gate.team {
		files = append(files, memory.GateFile{Rel: strings.TrimPrefix(f.path, memoryTeamPrefix), Regular: f.regular,
			Read: func() ([]byte, error) {
				data, err := f.read()
				read[i] = data
				return data, err
			}})
	}
	for _, p := range s.gate.teamLinks {
		files = append(files, memory.GateFile{Rel: strings.TrimPrefix(p, memoryTeamPrefix), Symlink: true})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Rel < files[j].Rel })
	issues, docs := memory.CheckFiles("team", files)
	s.gate.documents = docs
	for _, is := range issues {
		p := memoryTeamPrefix + is.Rel
		f := Finding{Path: p, Line: is.Line}
		switch is.Code {
		case memory.GateSecret:
			continue // the gate's own scanner reports them (teamSecretFindings)
		case memory.DiagInvalidDocument:
			f.Rule, f.Message = ruleMemoryInvalid, "ECC memory document is invalid or unreadable (ecc.memory.v1); "+memoryReadersSkip
		case memory.DiagLocationMismatch:
			f.Rule, f.Message = ruleMemoryInvalid, "ECC memory "+pyjson.ReprString(is.ID)+" does not match its vault location "+
				"(its scope must be 'team' and its first directory <kind>s/); "+memoryReadersSkip
		case memory.DiagSuspectedSecret:
			f.Rule, f.Message = ruleMemoryInvalid, "ECC memory "+pyjson.ReprString(is.ID)+" is quarantined by the memory readers "+
				"(suspected "+strings.Join(is.Labels, ", ")+"); "+memoryReadersSkip
		case memory.GateDuplicateID:
			others := make([]string, len(is.Others))
			for i, o := range is.Others {
				others[i] = memoryTeamPrefix + o
			}
			f.Rule, f.Message = ruleMemoryDuplicateID, "ECC memory id "+pyjson.ReprString(is.ID)+" is also held by "+
				strings.Join(others, ", ")+"; reads of it fail as duplicated"
		case memory.GateBrokenLink:
			f.Rule, f.Message = ruleMemoryBrokenLink, "ECC memory "+pyjson.ReprString(is.ID)+" links to "+pyjson.ReprString(is.Target)+
				", which no team memory of this snapshot holds"
		case memory.GateSymlink:
			f.Rule, f.Message = ruleMemorySymlink, "symbolic link in the team memory vault: memory readers never follow it and doctor reports it"
		case memory.GateTruncated:
			f.Path, f.Rule = strings.TrimSuffix(memoryTeamPrefix, "/"), ruleMemoryTruncated
			f.Message = fmt.Sprintf("the team memory vault exceeds what a memory scan reads (%d entries, %d MiB, %d directory levels); "+
				"every memory read becomes incomplete", memory.MaxScanEntries, memory.MaxScanBytes>>20, memory.MaxScanDepth)
		default:
			f.Rule, f.Message = ruleMemoryInvalid, "ECC memory check: "+is.Code
		}
		out = append(out, f)
	}
	out = append(out, s.teamSecretFindings(read)...)
	for i, data := range read {
		for _, m := range frontmatter.FindConflictMarkers(string(data)) {
			out = append(out, Finding{Path: s.gate.team[i].path, Line: m.Line, Rule: ruleConflictMarker,
				Message: "unresolved Git conflict marker " + pyjson.ReprString(m.Text)})
		}
	}
	return out
}

const memoryReadersSkip = "memory readers skip it and every memory read becomes incomplete"
