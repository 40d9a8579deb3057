package gitvault

import (
	"os"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// ReadPage returns one page's text with its echoes-conformance §12 hash, so that an adapter
// without shell access (the MCP server) can read a page and later pass the
// hash as expectedSha256 to Upsert or End. It is read-only and takes no lock:
// like Hash, a reader racing a writer sees either version, and the hash
// makes a stale read detectable at write time instead of preventing it.
func (e *Engine) ReadPage(filename string) (*ReadPageResult, error) {
	if err := e.WS.Gate(); err != nil {
		return nil, err
	}
	name, err := normalizePageName(pyjson.Str(filename))
	if err != nil {
		return nil, err
	}
	// On Windows CON.md opens the console, not a file: never read it.
	if err := portablePageName(name); err != nil {
		return nil, err
	}
	// pageTarget refuses a symlinked page: following it could read a file
	// outside the vault (echoes-conformance §8.4), which upsert would then refuse to replace.
	path, err := e.WS.pageTarget(name)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, Errorf("Page does not exist: %s", name)
	}
	text, exists, err := readPageText(path, name)
	if err != nil {
		return nil, err
	}
	if !exists { // removed between the Lstat and the read
		return nil, Errorf("Page does not exist: %s", name)
	}
	return &ReadPageResult{Page: path, SHA256: textHash(text), Content: text}, nil
}

// ReadPageResult is one page as ReadPage read it.
type ReadPageResult struct {
	Page    string // the page file's path
	SHA256  string // textHash of Content: the whole page's hash
	Content string
}

// JSON renders {"ok", "page", "sha256", "content"}.
func (r *ReadPageResult) JSON() pyjson.Value {
	return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
		Set("page", pyjson.Str(r.Page)).
		Set("sha256", pyjson.Str(r.SHA256)).
		Set("content", pyjson.Str(r.Content)))
}
