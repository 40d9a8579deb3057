package importer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/git-echoes/git-echoes/internal/fsx"
)

// Kind is a source format.
type Kind string

// The source formats.
const (
	KindMCPMemory   Kind = "mcp-memory"
	KindBasicMemory Kind = "basic-memory"
	KindObsidian    Kind = "obsidian"
	KindAgentsMD    Kind = "agents-md"
)

// Kinds lists the source formats in the order help text names them.
var Kinds = []Kind{KindMCPMemory, KindBasicMemory, KindObsidian, KindAgentsMD}

// ParseKind validates a --from value.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", &Error{Msg: fmt.Sprintf("--from must be one of mcp-memory, basic-memory, obsidian, agents-md, not %q", s)}
}

// Bounds on what an import reads: a source is read whole, so each read is
// capped before it starts (a 100 MB memory.jsonl is refused from its size,
// never loaded).
const (
	MaxJSONLBytes  = 32 << 20 // one memory.jsonl
	MaxLineBytes   = 1 << 20  // one JSONL record
	MaxNoteBytes   = 4 << 20  // one Markdown note or AGENTS.md
	MaxAssetBytes  = 32 << 20 // one attachment
	MaxNotes       = 20000    // notes in one folder
	MaxFolderDepth = 32
)

// Error is an import refused as a whole. Problems lists every cause found
// (file and line, never a secret's value).
type Error struct {
	Msg      string
	Problems []Problem
}

func (e *Error) Error() string { return e.Msg }

// Problem is one reason an import is refused, or one thing it reports.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

func errorf(format string, args ...any) *Error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// readBounded reads a regular file without following a symlink at its
// final component (fsx.OpenNoFollow) and without blocking on a FIFO,
// refusing it when it is larger than limit.
func readBounded(path string, limit int64, label string) ([]byte, error) {
	f, err := fsx.OpenNoFollow(path)
	if err != nil {
		if isLoop(err) {
			return nil, errorf("Refusing to read %s through a symbolic link: %s", label, path)
		}
		return nil, errorf("Cannot read %s %s: %v", label, path, unwrapPath(err))
	}
	defer f.Close()
	id, err := f.Stat()
	if err != nil {
		return nil, errorf("Cannot read %s %s: %v", label, path, unwrapPath(err))
	}
	if id.Mode&fs.ModeSymlink != 0 {
		return nil, errorf("Refusing to read %s through a symbolic link: %s", label, path)
	}
	if !id.IsRegular() {
		return nil, errorf("Refusing to read %s %s: it is not a regular file", label, path)
	}
	if id.Size > limit {
		return nil, errorf("%s %s is too large: %s, the limit is %s", capitalize(label), path, humanBytes(id.Size), humanBytes(limit))
	}
	data, err := io.ReadAll(io.LimitReader(&f, limit+1))
	if err != nil {
		return nil, errorf("Cannot read %s %s: %v", label, path, unwrapPath(err))
	}
	if int64(len(data)) > limit { // grew while read
		return nil, errorf("%s %s is too large: more than %s", capitalize(label), path, humanBytes(limit))
	}
	return data, nil
}

func isLoop(err error) bool {
	// O_NOFOLLOW refuses a symlink with ELOOP (FreeBSD: EMLINK), see fsx.
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Detect names the kind of source, when it is unambiguous: a .jsonl (or
// .json) file of entity and relation records is mcp-memory; AGENTS.md or
// CLAUDE.md is agents-md; a folder with .obsidian/ is obsidian; a folder
// with .basic-memory/ or notes carrying Basic Memory's permalink
// frontmatter is basic-memory. A folder with both markers, or neither, is
// ambiguous: the caller must name the kind.
func Detect(source string) (Kind, error) {
	fi, err := os.Lstat(source)
	if err != nil {
		return "", errorf("Cannot read the import source %s: %v", source, unwrapPath(err))
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "", errorf("Refusing to import through a symbolic link: %s", source)
	}
	base := strings.ToLower(filepath.Base(source))
	if fi.Mode().IsRegular() {
		switch {
		case base == "agents.md" || base == "claude.md":
			return KindAgentsMD, nil
		case strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".json"):
			if looksLikeMCPMemory(source) {
				return KindMCPMemory, nil
			}
		}
		return "", errorf("Cannot tell what kind of source %s is: name it with --from mcp-memory, basic-memory, obsidian or agents-md", source)
	}
	if !fi.IsDir() {
		return "", errorf("Refusing to import %s: it is neither a regular file nor a directory", source)
	}
	obsidian := fsx.IsDirNoFollow(filepath.Join(source, ".obsidian"))
	basic := fsx.IsDirNoFollow(filepath.Join(source, ".basic-memory")) || hasPermalinkNote(source)
	switch {
	case obsidian && !basic:
		return KindObsidian, nil
	case basic && !obsidian:
		return KindBasicMemory, nil
	case obsidian && basic:
		return "", errorf("%s is both an Obsidian vault and a Basic Memory project: name the kind with --from obsidian or --from basic-memory", source)
	}
	return "", errorf("Cannot tell what kind of folder %s is (no .obsidian/, no Basic Memory notes): name it with --from basic-memory or --from obsidian", source)
}

// looksLikeMCPMemory reads the first record of a JSONL file.
func looksLikeMCPMemory(path string) bool {
	f, err := fsx.OpenNoFollow(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(&f, buf)
	line := strings.TrimSpace(strings.SplitN(string(buf[:n]), "\n", 2)[0])
	return strings.HasPrefix(line, "{") && (strings.Contains(line, `"type":"entity"`) || strings.Contains(line, `"type":"relation"`) ||
		strings.Contains(line, `"type": "entity"`) || strings.Contains(line, `"type": "relation"`))
}

// hasPermalinkNote reports whether a top-level or nested note (the first
// 200 looked at) has a permalink frontmatter key, Basic Memory's marker.
func hasPermalinkNote(dir string) bool {
	seen := 0
	found := false
	_ = walkNotes(dir, func(rel string, isLink bool) bool {
		if isLink || !strings.HasSuffix(strings.ToLower(rel), ".md") {
			return true
		}
		seen++
		data, err := readBounded(filepath.Join(dir, filepath.FromSlash(rel)), MaxNoteBytes, "note")
		if err == nil {
			if fm, _, ok := splitFrontmatter(string(data)); ok {
				for _, f := range parseFields(fm) {
					if f.Key == "permalink" {
						found = true
						return false
					}
				}
			}
		}
		return seen < 200
	})
	return found
}

// walkNotes lists the files below dir in sorted order, slash-separated and
// relative, never following a symbolic link (a symlinked file or directory
// is passed with isLink true and not entered). Hidden directories
// (.obsidian, .git, .trash, .basic-memory) are skipped.
func walkNotes(dir string, fn func(rel string, isLink bool) bool) error {
	var walk func(rel string, depth int) (bool, error)
	walk = func(rel string, depth int) (bool, error) {
		if depth > MaxFolderDepth {
			return false, errorf("Folder %s is nested more than %d levels deep", rel, MaxFolderDepth)
		}
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		entries, err := os.ReadDir(abs)
		if err != nil {
			return false, errorf("Cannot list %s: %v", abs, unwrapPath(err))
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			name := e.Name()
			child := name
			if rel != "" {
				child = rel + "/" + name
			}
			if fsx.IsLinkEntry(abs, e) {
				if !fn(child, true) {
					return false, nil
				}
				continue
			}
			if e.IsDir() {
				if strings.HasPrefix(name, ".") {
					continue
				}
				more, err := walk(child, depth+1)
				if err != nil || !more {
					return more, err
				}
				continue
			}
			if !e.Type().IsRegular() || strings.HasPrefix(name, ".") {
				continue
			}
			if !fn(child, false) {
				return false, nil
			}
		}
		return true, nil
	}
	_, err := walk("", 0)
	return err
}

// lstat reports path itself, a final symlink not followed.
func lstat(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, errorf("Cannot read %s: %v", path, unwrapPath(err))
	}
	return fi, nil
}
