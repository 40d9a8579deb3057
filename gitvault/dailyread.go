package gitvault

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Read-only access to pages and daily entries by name, for adapters that
// offer them as documents (the MCP server's resources). Like ReadPage they
// take no lock and write nothing.

// PageNames lists the vault's page files (regular, not symlinks, .md), in
// the index's page order.
func (e *Engine) PageNames() ([]string, error) {
	if err := e.WS.Gate(); err != nil {
		return nil, err
	}
	names, err := listPageNames(e.WS.Pages)
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, Wrapf(err, "Cannot list pages: %s", OSDetail(err))
	}
	return names, nil
}

// DailyEntries lists the daily entries (regular, not symlinked *.md files
// below daily/) as slash paths relative to daily/, newest first: the order
// echoes_start shows them in (echoes-conformance §15.5).
func (e *Engine) DailyEntries() ([]string, error) {
	if err := e.WS.Gate(); err != nil {
		return nil, err
	}
	entries := []string{}
	WalkDaily(e.WS.Daily, func(rel string) bool { entries = append(entries, rel); return true })
	keys := make(map[string]string, len(entries))
	for _, rel := range entries {
		keys[rel] = pytext.NFC(rel)
	}
	sort.SliceStable(entries, func(i, j int) bool { return keys[entries[i]] > keys[entries[j]] })
	return entries, nil
}

// ReadDaily returns one daily entry's text. entry must be exactly one of
// the names DailyEntries lists: nothing outside daily/, no symlink, no
// directory is ever read.
func (e *Engine) ReadDaily(entry string) (string, error) {
	if err := e.WS.Gate(); err != nil {
		return "", err
	}
	found := false
	WalkDaily(e.WS.Daily, func(rel string) bool { found = rel == entry; return !found })
	if !found {
		return "", Errorf("Daily entry does not exist: %s", entry)
	}
	data, err := fsx.ReadFile(filepath.Join(e.WS.Daily, filepath.FromSlash(entry)))
	if err != nil {
		return "", Wrapf(err, "Cannot read daily entry %s: %s", entry, OSDetail(err))
	}
	text, err := pytext.DecodeText(data)
	if err != nil {
		return "", Wrapf(err, "Cannot read daily entry %s: invalid UTF-8", entry)
	}
	return text, nil
}
