package gitvault

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Options are the runtime's global options.
type Options struct {
	Workspace      string  // --workspace; empty means the current directory
	Agent          *string // --agent, nil when absent
	AdapterVersion *string // --adapter-version, nil when absent
}

// Engine runs protocol commands against one resolved workspace.
type Engine struct {
	WS  *Workspace
	opt Options

	cacheMu sync.Mutex
	pages   *pageCache // loaded on first use, then kept and revalidated per call
	noCache bool       // tests and benchmarks: read every page, as without a cache
	texts   *textCache // page texts, kept by a long-lived engine (KeepPageTexts)
}

// pageCache returns the engine's page cache (pagecache.go), loading the
// cache file on first use. A long-lived engine (the MCP server) keeps it in
// memory: every call still checks every page's stamp.
func (e *Engine) pageCache() *pageCache {
	e.cacheMu.Lock()
	defer e.cacheMu.Unlock()
	if e.noCache {
		return nil
	}
	if e.pages == nil || e.pages.dir != e.WS.Pages {
		e.pages = loadPageCache(e.WS)
	}
	return e.pages
}

// Options returns the global options the engine was opened with, for the
// commands of other packages that refuse or honour them (review's as-of
// reads refuse the write flags).
func (e *Engine) Options() Options { return e.opt }

// Open resolves the workspace (echoes-conformance §3). It writes nothing.
func Open(opt Options) (*Engine, error) {
	ws, err := ResolveWorkspace(opt.Workspace)
	if err != nil {
		return nil, err
	}
	return &Engine{WS: ws, opt: opt}, nil
}

// Payload returns the raw bytes of a command's JSON payload. It is called only
// after the command's marker check, as the reference does.
type Payload func() ([]byte, error)

// decodePayload parses a payload into a JSON object (echoes-conformance §4.5).
func decodePayload(load Payload) (*pyjson.Obj, error) {
	data, err := load()
	if err != nil {
		return nil, Wrapf(err, "Cannot read JSON payload: %s", OSDetail(err))
	}
	text, err := pytext.DecodeText(data)
	if err != nil {
		return nil, Wrapf(err, "Cannot read JSON payload: %s", err.Error())
	}
	v, err := pyjson.Decode(text)
	if err != nil {
		return nil, Wrapf(err, "Cannot read JSON payload: %s", err.Error())
	}
	if v.Kind != pyjson.Object {
		return nil, Errorf("JSON payload must be an object.")
	}
	return v.Obj, nil
}

func field(o *pyjson.Obj, key string) pyjson.Value {
	v, ok := o.Get(key)
	if !ok {
		return pyjson.NullValue()
	}
	return v
}

// textHash is the page hash of echoes-conformance §12: SHA-256 of the universal-newline text.
func textHash(text string) string {
	sum := sha256.Sum256([]byte(pytext.UniversalNewlines(text)))
	return hex.EncodeToString(sum[:])
}

// LockedMutation runs fn under the shared lock for a command that needs an
// initialized vault: the marker is checked before anything is created, then
// again inside the lock (another writer may have changed it meanwhile).
func (e *Engine) LockedMutation(fn func(w *Writer) (pyjson.Value, error)) (pyjson.Value, error) {
	if err := e.WS.Gate(); err != nil {
		return pyjson.Value{}, err
	}
	w, err := e.WS.Acquire()
	if err != nil {
		return pyjson.Value{}, err
	}
	defer w.Release()
	if err := e.WS.Gate(); err != nil {
		return pyjson.Value{}, err
	}
	v, err := fn(w)
	if err == nil {
		// The page cache file is written here only: under the lock, by a
		// command that succeeded (a refused command writes nothing).
		e.cacheMu.Lock()
		c := e.pages
		e.cacheMu.Unlock()
		if c != nil {
			// As a guarded write: after a signal handler released the
			// lock (ReleaseLocks), the cache is not written either.
			_ = w.guarded(func() error { c.save(); return nil })
		}
	}
	return v, err
}

// FlagAgent validates --agent before any write (the reference validates it
// only while writing state, after other writes; see echoes-conformance §14.3 Quirk).
func (e *Engine) FlagAgent() (*string, error) {
	if e.opt.Agent == nil {
		return nil, nil
	}
	return resolveAgent(pyjson.NullValue(), false, e.opt.Agent)
}

// Render validates every page of the work tree and renders the index, with
// proposed pages substituted or added.
func (e *Engine) Render(proposed []indexPage) (*Index, error) {
	src := DirSource{e.WS.Pages}
	names, err := src.PageNames()
	if err != nil {
		return nil, Wrapf(err, "Cannot list pages in %s: %s", e.WS.Pages, OSDetail(err))
	}
	return e.renderNames(names, proposed)
}

// renderSweeping is Render for a writer that has not swept pages/ yet: the
// one listing of the directory gives the pages and the stale temporary
// files to sweep (issue 19: on 100,000 pages the sweep's own listing was a
// tenth of hydrate). Temporary files are never pages (they end in .tmp),
// so sweeping them after the listing changes no page name.
func (e *Engine) renderSweeping(w *Writer) (*Index, error) {
	names, temps, err := readPagesDir(e.WS.Pages)
	if errors.Is(err, os.ErrNotExist) {
		names, err = nil, nil
	}
	if err != nil {
		return nil, Wrapf(err, "Cannot list pages in %s: %s", e.WS.Pages, OSDetail(err))
	}
	w.sweepListed(e.WS.Pages, temps)
	return e.renderNames(names, nil)
}

// renderNames renders the index of the listed pages with proposed pages
// substituted or added.
func (e *Engine) renderNames(names []string, proposed []indexPage) (*Index, error) {
	replace := make(map[string]int, len(proposed))
	for i, p := range proposed {
		replace[p.Name] = i
	}
	return AssembleIndex(names, e.LoadPages(names, replace, false), proposed)
}

// LoadPages is loadAndParse over the work-tree pages, through the page
// cache when the engine has one.
func (e *Engine) LoadPages(names []string, skip map[string]int, withConflict bool) []LoadedPage {
	if c := e.pageCache(); c != nil {
		return loadAndParseCached(c, names, skip, withConflict)
	}
	return loadAndParse(DirSource{e.WS.Pages}, names, skip, withConflict)
}

// refreshResult is the indexRefresh object (echoes-conformance §11.3).
type refreshResult struct {
	Rebuilt           bool
	MigratedSummaries []string
	PageCount         int
	SHA256            string
}

func (r refreshResult) JSON() pyjson.Value {
	return pyjson.ObjectValue(pyjson.NewObj().Set("rebuilt", pyjson.Boolean(r.Rebuilt)).
		Set("migratedSummaries", pyjson.Strs(r.MigratedSummaries)).
		Set("pageCount", pyjson.Int(int64(r.PageCount))).
		Set("sha256", pyjson.Str(r.SHA256)))
}

// CurrentIndexText reads index.md as text; missing or unreadable counts as empty.
func (ws *Workspace) CurrentIndexText() string {
	data, err := fsx.ReadFile(ws.Index)
	if err != nil {
		return ""
	}
	text, err := pytext.DecodeText(data)
	if err != nil {
		return ""
	}
	return text
}

// indexIs reports whether index.md, read as text, is text: the same answer
// as CurrentIndexText() == text. The bytes are compared first, with no
// copy: DecodeText leaves valid UTF-8 without a CR as it is, and a
// rendered index holds neither a CR nor invalid UTF-8, so equal bytes are
// equal text; only when they differ is the file decoded (a CRLF copy of the
// same index is still the same text). Issue 19: decoding a 6 MB index on
// 100,000 pages was a measurable part of hydrate.
func (ws *Workspace) indexIs(text string) bool {
	data, err := fsx.ReadFile(ws.Index)
	if err != nil {
		return text == ""
	}
	if string(data) == text { // compiled without a copy
		return true
	}
	decoded, err := pytext.DecodeText(data)
	if err != nil {
		return text == ""
	}
	return decoded == text
}

// RefreshIndex renders and writes index.md only when it differs.
func (w *Writer) RefreshIndex(idx *Index) (refreshResult, error) {
	res := refreshResult{PageCount: len(idx.Pages), SHA256: idx.SHA256}
	if !w.ws.indexIs(idx.Text) {
		if err := w.Write(w.ws.Index, []byte(idx.Text)); err != nil {
			return res, err
		}
		res.Rebuilt = true
	}
	return res, nil
}

// FinishState writes the state at the end of a mutating command (echoes-conformance §14.3).
func (e *Engine) FinishState(w *Writer, st *State, stats Stats, agent *string) (*State, error) {
	st.Initialized = true
	st.Stats = stats
	st.setWriter(agent, e.opt.AdapterVersion)
	return st, w.writeState(st)
}

// refuseSymlinkTargets fails when a managed replacement target the command
// will write is a symlink, so that the refusal comes before the first write
// instead of after the page was replaced (protocol §16: fail closed before
// writing durable knowledge; echoes-conformance §5 step 2). It refuses as
// well a target that is a FIFO, a directory or anything else but a regular
// file (issue 11 item 4), before the first write too.
func refuseSymlinkTargets(paths ...string) error {
	for _, p := range paths {
		if fsx.IsSymlink(p) {
			return Errorf("Refusing to replace a symbolic link: %s", p)
		}
		if err := refuseIrregular(p); err != nil {
			return err
		}
	}
	return nil
}

// refuseIrregular fails when p exists and is not a regular file (a symlink
// is left to the callers' own refusal).
func refuseIrregular(p string) error {
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0 {
		return nil
	}
	return Errorf("Refusing to replace %s: it is %s, not a regular file", p, fsx.DescribeType(fi.Mode().Type()))
}

// pageTarget resolves a normalized page file name to its path, refusing a
// symlinked page (echoes-conformance §8.4).
func (ws *Workspace) pageTarget(name string) (string, error) {
	p := filepath.Join(ws.Pages, name)
	if fsx.IsSymlink(p) {
		return "", Errorf("Refusing to read or replace a symbolic-link page: %s", name)
	}
	return p, nil
}

// readPageText reads an existing page as text. exists is false when the
// page file does not exist.
func readPageText(path, name string) (text string, exists bool, err error) {
	text, exists, _, err = readPageTextBuf(path, name, nil)
	return text, exists, err
}

// readPageTextBuf is readPageText reading into buf (returned, grown as
// needed, for the next read): the text is a copy.
func readPageTextBuf(path, name string, buf []byte) (text string, exists bool, _ []byte, err error) {
	data, err := fsx.ReadFileBuf(path, buf)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, data, nil
	}
	if err != nil {
		return "", true, data, Wrapf(err, "Cannot read page %s: %s", name, OSDetail(err))
	}
	text, err = pytext.DecodeText(data)
	if err != nil {
		return "", true, data, Wrapf(err, "Cannot read page %s: invalid UTF-8", name)
	}
	return text, true, data, nil
}
