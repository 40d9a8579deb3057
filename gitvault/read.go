package gitvault

import (
	"os"

	"github.com/git-echoes/git-echoes/internal/jsonx"
)

// ReadPage returns one page's text with its echoes-conformance §12 hash, so that an adapter
// without shell access (the MCP server) can read a page and later pass the
// hash as expectedSha256 to Upsert or End. It is read-only and takes no lock:
// like Hash, a reader racing a writer sees either version, and the hash
// makes a stale read detectable at write time instead of preventing it.
func (e *Engine) ReadPage(filename string) (jsonx.Value, error) {
	if err := e.WS.Gate(); err != nil {
		return jsonx.Value{}, err
	}
	name, err := NormalizePageName(jsonx.Str(filename))
	if err != nil {
		return jsonx.Value{}, err
	}
	// On Windows CON.md opens the console, not a file: never read it.
	if err := portablePageName(name); err != nil {
		return jsonx.Value{}, err
	}
	// pageTarget refuses a symlinked page: following it could read a file
	// outside the vault (echoes-conformance §8.4), which upsert would then refuse to replace.
	path, err := e.WS.pageTarget(name)
	if err != nil {
		return jsonx.Value{}, err
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return jsonx.Value{}, errorf("Page does not exist: %s", name)
	}
	text, exists, err := readPageText(path, name)
	if err != nil {
		return jsonx.Value{}, err
	}
	if !exists { // removed between the Lstat and the read
		return jsonx.Value{}, errorf("Page does not exist: %s", name)
	}
	return jsonx.ObjectValue(jsonx.NewObj().Set("ok", jsonx.Boolean(true)).
		Set("page", jsonx.Str(path)).
		Set("sha256", jsonx.Str(TextHash(text))).
		Set("content", jsonx.Str(text))), nil
}
