package memory

import (
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"
)

// A read-only snapshot of the project vault (issue 9: as-of reads): the
// project and team scopes as a commit holds them under .ecc/memory/, read
// from the Git object store by the caller. Search and Read run over it
// exactly as over the file system (the same walk order, budgets,
// diagnostics and parse), so `memory search --rev` answers what the
// vault said at that commit. Nothing here touches the file system.

// SnapshotFile is one entry of a snapshot.
type SnapshotFile struct {
	// Path is slash-separated and relative to the project vault root
	// (".ecc/memory"), for example "team/decisions/mem_x.md".
	Path    string
	Regular bool // a regular file (not a symlink or submodule)
	Symlink bool
	Read    func() ([]byte, error)
}

type snapshot struct {
	label string
	files []SnapshotFile
}

// SnapshotRoots returns roots whose project and team scopes are read from
// files (a commit's .ecc/memory tree); label names the snapshot in
// messages ("revision v1.2"). The user scope is not in Git: scanning it
// fails. base supplies the rest (Cwd, Home) and is not modified.
func SnapshotRoots(base *Roots, label string, files []SnapshotFile) *Roots {
	r := *base
	r.snapshot = &snapshot{label: label, files: files}
	return &r
}

// snapshotEntry is a virtual fs.DirEntry for sortEntries.
type snapshotEntry struct {
	name string
	dir  bool
	file *SnapshotFile
}

func (e snapshotEntry) Name() string { return e.name }
func (e snapshotEntry) IsDir() bool  { return e.dir }
func (e snapshotEntry) Type() fs.FileMode {
	switch {
	case e.dir:
		return fs.ModeDir
	case e.file.Symlink:
		return fs.ModeSymlink
	case e.file.Regular:
		return 0
	}
	return fs.ModeIrregular
}
func (e snapshotEntry) Info() (fs.FileInfo, error) { return snapshotInfo{e}, nil }

type snapshotInfo struct{ e snapshotEntry }

func (i snapshotInfo) Name() string       { return i.e.name }
func (i snapshotInfo) Size() int64        { return 0 }
func (i snapshotInfo) Mode() fs.FileMode  { return i.e.Type() }
func (i snapshotInfo) ModTime() time.Time { return time.Time{} }
func (i snapshotInfo) IsDir() bool        { return i.e.dir }
func (i snapshotInfo) Sys() any           { return nil }

// scanSnapshot is scan over a snapshot: walk order (localeCompare per
// directory), hidden entries, depth, entry and byte budgets and the
// per-file diagnostics are those of the file-system scan (ecc-conformance §11).
func scanSnapshot(snap *snapshot, scopes []string) (*scanResult, error) {
	s := &scanner{paths: newResolver()}
	s.res.Entries = []Entry{}
	s.res.InvalidFiles = []InvalidFile{}
	s.res.SkippedSymlinks = []string{}
	for _, scope := range scopes {
		if s.visited >= MaxScanEntries || s.res.ScannedBytes >= MaxScanBytes {
			s.res.Truncated = true
			break
		}
		if scope == "user" {
			return nil, invalid("The user scope is not stored in Git; it cannot be read at " + snap.label + ".")
		}
		children := map[string][]snapshotEntry{}
		seenDir := map[string]bool{}
		rootExists := false
		for i := range snap.files {
			f := &snap.files[i]
			if f.Path == scope {
				// The scope root itself is not a directory in the commit.
				if f.Symlink {
					return nil, newErr(CodeUnsafePath, "Refusing to access memory through symlink root: "+scope+" at "+snap.label)
				}
				rootExists = true
				continue
			}
			rel, ok := strings.CutPrefix(f.Path, scope+"/")
			if !ok {
				continue
			}
			rootExists = true
			parts := strings.Split(rel, "/")
			for k := 0; k < len(parts)-1; k++ {
				dir, child := strings.Join(parts[:k], "/"), strings.Join(parts[:k+1], "/")
				if !seenDir[child] {
					seenDir[child] = true
					children[dir] = append(children[dir], snapshotEntry{name: parts[k], dir: true})
				}
			}
			dir := strings.Join(parts[:len(parts)-1], "/")
			children[dir] = append(children[dir], snapshotEntry{name: parts[len(parts)-1], file: f})
		}
		if !rootExists {
			continue
		}
		var files []*SnapshotFile
		var rels []string
		s.walkSnapshot(children, "", 0, scope, &files, &rels)
		s.readSnapshotFiles(scope, files, rels)
	}
	s.res.DiagnosticsTruncated = s.res.InvalidFileCount > len(s.res.InvalidFiles) ||
		s.res.SkippedSymlinkCount > len(s.res.SkippedSymlinks)
	return &s.res, nil
}

// walkSnapshot is walkDir over the virtual tree; it reports false once the
// entry budget is used up.
func (s *scanner) walkSnapshot(children map[string][]snapshotEntry, rel string, depth int, scope string, files *[]*SnapshotFile, rels *[]string) bool {
	if depth > MaxScanDepth {
		s.res.Truncated = true
		return true
	}
	list := children[rel]
	if remaining := MaxScanEntries - s.visited; len(list) > remaining {
		list = list[:remaining]
		s.res.Truncated = true
	}
	entries := make([]fs.DirEntry, len(list))
	for i, e := range list {
		entries[i] = e
	}
	sortEntries(entries)
	for _, de := range entries {
		e := de.(snapshotEntry)
		if s.visited >= MaxScanEntries {
			s.res.Truncated = true
			return false
		}
		s.visited++
		childRel := e.name
		if rel != "" {
			childRel = rel + "/" + e.name
		}
		switch {
		case !e.dir && e.file.Symlink:
			s.res.SkippedSymlinkCount++
			if len(s.res.SkippedSymlinks) < MaxDiagnostics {
				s.res.SkippedSymlinks = append(s.res.SkippedSymlinks, scope+":"+childRel)
			}
		case e.dir:
			if strings.HasPrefix(e.name, ".") {
				continue
			}
			if !s.walkSnapshot(children, childRel, depth+1, scope, files, rels) {
				return false
			}
		case e.file.Regular:
			if strings.HasSuffix(e.name, ".md") && !strings.HasPrefix(e.name, ".") {
				*files = append(*files, e.file)
				*rels = append(*rels, childRel)
			}
		}
	}
	return true
}

// readSnapshotFiles is readFiles over snapshot blobs, sequentially: the
// same size cap, UTF-8 decoding, parse, location and secret checks
// (ecc-conformance §11.4), in walk order.
func (s *scanner) readSnapshotFiles(scope string, files []*SnapshotFile, rels []string) {
	for i, f := range files {
		rel := rels[i]
		if s.res.ScannedBytes >= MaxScanBytes {
			s.res.Truncated = true
			return
		}
		raw, err := f.Read()
		if err != nil || len(raw) > MaxDocumentBytes || !utf8.Valid(raw) {
			s.invalid(scope, rel, DiagInvalidDocument)
			continue
		}
		text := strings.TrimPrefix(string(raw), "\uFEFF")
		if s.res.ScannedBytes+len(text) > MaxScanBytes {
			s.res.Truncated = true
			return
		}
		s.res.ScannedBytes += len(text)
		m, err := ParseDocument(text)
		if err != nil {
			s.invalid(scope, rel, DiagInvalidDocument)
			continue
		}
		first, _, nested := strings.Cut(rel, "/")
		if m.Scope != scope || !nested || first != m.Kind+"s" {
			s.invalid(scope, rel, DiagLocationMismatch)
			continue
		}
		if hasSecretOnRead(m) {
			s.invalid(scope, rel, DiagSuspectedSecret)
			continue
		}
		s.res.Entries = append(s.res.Entries, Entry{Memory: m, Path: scope + ":" + rel})
	}
}
