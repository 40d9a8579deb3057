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
	path, text, _, err := e.readPageGated(filename, nil)
	if err != nil {
		return nil, err
	}
	return &ReadPageResult{Page: path, SHA256: textHash(text), Content: text}, nil
}

// ReadPageTexts is the Content ReadPage returns for each of names, with
// its checks and errors (at: the index of the name that failed), the
// vault gated once and one read buffer for all: git echoes stale reads
// every page of the work tree, and ReadPage read and parsed the marker
// and allocated a buffer again for each (most of a warm run's own time
// on a thousand pages). No name: nothing is read, not even the marker.
func (e *Engine) ReadPageTexts(names []string) (texts []string, at int, err error) {
	if len(names) == 0 {
		return nil, 0, nil
	}
	if err := e.WS.Gate(); err != nil {
		return nil, 0, err
	}
	texts = make([]string, len(names))
	var buf []byte
	for i, n := range names {
		if _, texts[i], buf, err = e.readPageGated(n, buf); err != nil {
			return nil, i, err
		}
	}
	return texts, 0, nil
}

// readPageGated is ReadPage after the gate, reading through buf.
func (e *Engine) readPageGated(filename string, buf []byte) (path, text string, _ []byte, err error) {
	name, err := normalizePageName(pyjson.Str(filename))
	if err != nil {
		return "", "", buf, err
	}
	// On Windows CON.md opens the console, not a file: never read it.
	if err := portablePageName(name); err != nil {
		return "", "", buf, err
	}
	// pageTarget refuses a symlinked page: following it could read a file
	// outside the vault (echoes-conformance §8.4), which upsert would then refuse to replace.
	path, err = e.WS.pageTarget(name)
	if err != nil {
		return "", "", buf, err
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return "", "", buf, Errorf("Page does not exist: %s", name)
	}
	text, exists, buf, err := readPageTextBuf(path, name, buf)
	if err != nil {
		return "", "", buf, err
	}
	if !exists { // removed between the Lstat and the read
		return "", "", buf, Errorf("Page does not exist: %s", name)
	}
	return path, text, buf, nil
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
