package gitvault

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/winname"
)

// The write side of `git echoes import` (issue 21). The importer
// (gitvault/importer) plans what to write without touching the vault; these
// functions validate and write that plan through the same locked, atomic,
// hash-checked writer as upsert and end (protocol §11), and end with the
// rebuild-index of protocol §12.12.

// ImportPage is one page an import writes. ExpectedSHA256 is the hash of
// protocol §12.9 of the page's text when the importer read it ("" for a
// page that did not exist then); it is checked again under the lock
// (protocol §11.3), so an edit made between planning and writing is never
// overwritten.
type ImportPage struct {
	Filename       string
	Content        string
	ExpectedSHA256 string
}

// ImportAsset is one file copied to EchoesVault/assets/ (protocol §5.1).
// Name is a single file name.
type ImportAsset struct {
	Name string
	Data []byte
}

// ImportWriteResult says what WriteImport changed.
type ImportWriteResult struct {
	Created, Updated, Unchanged []string // page file names
	AssetsWritten               []string // asset names
	IndexSHA256                 string
	PageCount                   int
}

// ImportPageName normalizes a proposed page name by protocol §7.1 and
// refuses, on every OS, a name Windows cannot hold (an import must produce a
// vault every clone can check out, issue 8) and a name that injects lines
// (unsafenames.go).
func ImportPageName(raw string) (string, error) {
	name, err := NormalizePageString(raw)
	if err != nil {
		return "", err
	}
	if r := winname.Reason(name); r != "" {
		return "", Errorf("Page filename %s cannot be checked out on Windows: %s.", pyjson.ReprString(name), r)
	}
	if err := RefuseUnsafePageName(name); err != nil {
		return "", err
	}
	return name, nil
}

// PageTextHash is the protocol §12.9 hash of a page text.
func PageTextHash(text string) string { return textHash(text) }

// ValidateImportContent validates content as a complete page with the
// required frontmatter (protocol §7.2, protocol §7.3), and returns the text a writer
// stores.
func ValidateImportContent(content string) (string, error) {
	p, err := validatePage(content, true)
	if err != nil {
		return "", err
	}
	return p.Text, nil
}

// ReadPageText reads the current text of a page (read-only; a symlinked page
// is refused). exists is false when there is no such page.
func (e *Engine) ReadPageText(name string) (text string, exists bool, err error) {
	path, err := e.WS.pageTarget(name)
	if err != nil {
		return "", false, err
	}
	return readPageText(path, name)
}

// ExistingPageNames lists the page file names of the work tree.
func (e *Engine) ExistingPageNames() ([]string, error) {
	return DirSource{e.WS.Pages}.PageNames()
}

// assetTarget resolves an asset name below EchoesVault/assets/, refusing
// names that are not one portable file name and symlinked targets.
func (e *Engine) assetTarget(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") || strings.Contains(name, "..") {
		return "", Errorf("Unsafe asset filename: %s", pyjson.ReprString(name))
	}
	if r := winname.Reason(name); r != "" {
		return "", Errorf("Asset filename %s cannot be checked out on Windows: %s.", pyjson.ReprString(name), r)
	}
	if d := UnsafeNameDetail(name); d != "" {
		return "", Errorf("Asset filename %s holds %s.", pyjson.ReprString(name), d)
	}
	if fsx.IsSymlink(e.WS.Assets) {
		return "", Errorf("Refusing to write through a symbolic-link assets directory: %s", e.WS.Assets)
	}
	p := filepath.Join(e.WS.Assets, name)
	if fsx.IsSymlink(p) {
		return "", Errorf("Refusing to read or replace a symbolic-link asset: %s", name)
	}
	return p, nil
}

// ReadAsset reads an existing asset (read-only). exists is false when there
// is none.
func (e *Engine) ReadAsset(name string) (data []byte, exists bool, err error) {
	p, err := e.assetTarget(name)
	if err != nil {
		return nil, false, err
	}
	data, err = fsx.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, Wrapf(err, "Cannot read asset %s: %s", name, OSDetail(err))
	}
	return data, true, nil
}

// WriteImport validates every page (required frontmatter, summary, names,
// the current hash of an existing page) and the prospective complete index
// before the first write (protocol §11.2: multi-file operations validate
// first), then writes the pages and assets that differ, then rebuilds the
// index from the work tree and writes the state, as rebuild-index does.
// A page that already holds the proposed text is not rewritten.
func (e *Engine) WriteImport(pages []ImportPage, assets []ImportAsset) (ImportWriteResult, error) {
	var res ImportWriteResult
	_, err := e.LockedMutation(func(w *Writer) (pyjson.Value, error) {
		var prepared []*preparedPage
		seen := map[string]bool{}
		for _, ip := range pages {
			if _, err := ImportPageName(ip.Filename); err != nil {
				return pyjson.Value{}, err
			}
			item := pyjson.NewObj().Set("filename", pyjson.Str(ip.Filename)).Set("content", pyjson.Str(ip.Content))
			if ip.ExpectedSHA256 != "" {
				item.Set("expectedSha256", pyjson.Str(ip.ExpectedSHA256))
			}
			p, err := e.preparePage(item, true)
			if err != nil {
				return pyjson.Value{}, err
			}
			if seen[p.Path] {
				return pyjson.Value{}, Errorf("Import contains duplicate page: %s", p.Name)
			}
			seen[p.Path] = true
			prepared = append(prepared, p)
		}
		proposed := make([]indexPage, len(prepared))
		for i, p := range prepared {
			proposed[i] = p.indexPage
		}
		if _, err := e.Render(proposed); err != nil {
			return pyjson.Value{}, err
		}
		type assetWrite struct {
			name, path string
			data       []byte
		}
		var writes []assetWrite
		for _, a := range assets {
			p, err := e.assetTarget(a.Name)
			if err != nil {
				return pyjson.Value{}, err
			}
			if err := refuseIrregular(p); err != nil {
				return pyjson.Value{}, err
			}
			if cur, err := fsx.ReadFile(p); err == nil && bytes.Equal(cur, a.Data) {
				continue
			}
			writes = append(writes, assetWrite{a.Name, p, a.Data})
		}
		if err := refuseSymlinkTargets(e.WS.Index, e.WS.State); err != nil {
			return pyjson.Value{}, err
		}
		for _, p := range prepared {
			current, existed, err := readPageText(p.Path, p.Name)
			if err != nil {
				return pyjson.Value{}, err
			}
			switch {
			case existed && current == p.Page.Text:
				res.Unchanged = append(res.Unchanged, p.Name)
				continue
			case existed:
				res.Updated = append(res.Updated, p.Name)
			default:
				res.Created = append(res.Created, p.Name)
			}
			if err := w.Mkdirs(e.WS.Pages); err != nil {
				return pyjson.Value{}, err
			}
			if err := w.Write(p.Path, []byte(p.Page.Text)); err != nil {
				return pyjson.Value{}, err
			}
		}
		if len(writes) > 0 {
			if err := w.Mkdirs(e.WS.Assets); err != nil {
				return pyjson.Value{}, err
			}
		}
		for _, a := range writes {
			if err := w.Write(a.path, a.data); err != nil {
				return pyjson.Value{}, err
			}
			res.AssetsWritten = append(res.AssetsWritten, a.name)
		}
		// One rebuild-index (protocol §12.12) after every write.
		w.sweepAll()
		refresh, _, err := e.refreshCommand(w)
		if err != nil {
			return pyjson.Value{}, err
		}
		res.IndexSHA256, res.PageCount = refresh.SHA256, refresh.PageCount
		return pyjson.Value{}, nil
	})
	return res, err
}

// ManagedBlockMarkers are the delimiters of the block git-echoes manages in
// AGENTS.md and CLAUDE.md (protocol §5.3), which an import never copies.
func ManagedBlockMarkers() (start, end string) { return BlockStart, BlockEnd }
