package gitvault

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// normalizePageName turns a requested page name into its file name
// (echoes-conformance §8.1).
func normalizePageName(v pyjson.Value) (string, error) {
	if v.Kind != pyjson.String || pytext.IsBlank(v.S) {
		return "", Errorf("Page filename must be a non-empty string.")
	}
	return NormalizePageString(v.S)
}

func NormalizePageString(raw string) (string, error) {
	// A name from the command line may hold bytes that are not UTF-8 (Python would
	// carry them as surrogate escapes). Refuse them: NFC is not defined on such
	// bytes, and a page name must be text every OS and Git agree on.
	if !utf8.ValidString(raw) {
		return "", Errorf("Page filename must be valid UTF-8.")
	}
	name := pytext.NFC(pytext.Strip(raw))
	name = strings.TrimSuffix(name, ".md")
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") {
		return "", Errorf("Unsafe page filename: %s", pyjson.ReprString(raw))
	}
	if strings.HasPrefix(name, ".") {
		return "", Errorf("Hidden page filenames are not allowed.")
	}
	return name + ".md", nil
}

// PySuffix returns Python's PurePath.suffix and stem for a file name.
func PySuffix(name string) (stem, suffix string) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 {
		return name, ""
	}
	return name[:i], name[i:]
}

// IsPageFileName reports whether a directory entry name is a page (echoes-conformance §8.2).
func IsPageFileName(name string) bool {
	_, suffix := PySuffix(name)
	return strings.EqualFold(suffix, ".md")
}

// PageStem returns the stem of a page file name.
func PageStem(name string) string { stem, _ := PySuffix(name); return stem }

// pageSortKey is the listing and index order key (echoes-conformance §8.2, echoes-conformance §11.1).
type pageSortKey struct{ folded, nfc string }

func sortKey(name string) pageSortKey {
	n := pytext.NFC(name)
	return pageSortKey{pytext.Casefold(n), n}
}

func (a pageSortKey) less(b pageSortKey) bool {
	if a.folded != b.folded {
		return a.folded < b.folded
	}
	return a.nfc < b.nfc
}

// cmp is less as a three-way comparison.
func (a pageSortKey) cmp(b pageSortKey) int {
	if c := strings.Compare(a.folded, b.folded); c != 0 {
		return c
	}
	return strings.Compare(a.nfc, b.nfc)
}

// sortPageNames sorts file names in listing order.
func sortPageNames(names []string) {
	// Keys beside their names, not in a map: on 100,000 pages the map's
	// inserts and the two lookups per comparison were most of the sort.
	type keyed struct {
		key  pageSortKey
		name string
	}
	ks := make([]keyed, len(names))
	for i, n := range names {
		ks[i] = keyed{sortKey(n), n}
	}
	// Ties (names equal once normalised) in byte order: what a stable
	// sort of os.ReadDir's name-sorted listing gave, whatever order the
	// directory lists them in. slices.SortFunc with one three-way compare
	// per field, not sort.Slice's less (which compared the keys twice) and
	// its reflective swapper: on 100,000 pages the sort was a sixth of
	// hydrate (issue 19).
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := strings.Compare(a.key.folded, b.key.folded); c != 0 {
			return c
		}
		if c := strings.Compare(a.key.nfc, b.key.nfc); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	for i := range ks {
		names[i] = ks[i].name
	}
}

// listPageNames lists the page files of dir: direct regular non-symlink
// children with a case-insensitive .md suffix, in listing order.
func listPageNames(dir string) ([]string, error) {
	names, _, err := readPagesDir(dir)
	return names, err
}

// readPagesDir is listPageNames that also returns the names of the
// directory's entries that fsx.IsTempName (atomic-write leftovers; none is
// a page, they end in .tmp), so that a writer sweeps them from the same
// listing.
func readPagesDir(dir string) (names, temps []string, err error) {
	// f.ReadDir, not os.ReadDir: the names are sorted below by the page
	// order, so os.ReadDir's sort by name was wasted work.
	f, err := os.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, nil, err
	}
	names = make([]string, 0, len(entries))
	for _, e := range entries {
		// ReadDir reports the entry's own type (no symlink following), so
		// symlinks and directories are excluded without an extra stat.
		if e.Type().IsRegular() && IsPageFileName(e.Name()) {
			names = append(names, e.Name())
		} else if fsx.IsTempName(e.Name()) {
			temps = append(temps, e.Name())
		}
	}
	sortPageNames(names)
	return names, temps, nil
}

// WalkDaily calls fn with the vault-relative-to-daily slash path of every
// regular non-symlink *.md file below daily/ (suffix case-sensitive), in
// lexical walk order. fn returns false to stop.
func WalkDaily(dailyDir string, fn func(rel string) bool) {
	stop := false
	// The trailing separator makes the walk enter daily/ itself when it is
	// a symlink to a directory (confinement already keeps its target inside
	// the workspace), as the reference's directory scan does; symlinks
	// below it are still not followed.
	_ = filepath.WalkDir(dailyDir+string(filepath.Separator), func(p string, d fs.DirEntry, err error) error {
		if stop {
			return filepath.SkipAll
		}
		if err != nil {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".md") {
			rel, _ := filepath.Rel(dailyDir, p)
			if !fn(filepath.ToSlash(rel)) {
				stop = true
				return filepath.SkipAll
			}
		}
		return nil
	})
}

// OSDetail renders an OS error roughly as Python's str(OSError) does; the
// wording of embedded OS messages is not contractual.
func OSDetail(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error() + ": " + pyjson.ReprString(pe.Path)
	}
	return err.Error()
}
