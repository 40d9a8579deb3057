package freshness

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/fsx"
)

// The rendered-answer cache (issue 18, "warm under 50 ms"): beside the
// verdicts, the last answer git echoes stale printed in each format,
// keyed by everything that answer is a function of: the format, the
// renderer (renderVersion and the build), and the verdict cache's key of
// every document of the selection, in order (which holds the target, the
// shallow boundary and each document's path, kind and text or blob id).
// A warm run of the benchmark spent more time decoding the thousand
// reports and writing the 3.7 MB of JSON again than everything else: an
// answer whose key matches is the bytes a cold run prints, and is
// printed as it is. Like the verdicts it is never authoritative: a file
// that does not match is ignored and replaced.
//
//	file = renderedMagic key:32 bytes revKey:32 bytes stale:byte length:8 bytes answer
//
// (revKey: see renderedAt; the magic's last byte is the layout's version.)

var renderedMagic = []byte("echoes-rendered\x01")

// renderVersion names the renderers' output: change it with any change
// to what Text, Markdown or PrettyJSON print (TestRenderVersionPinned
// fails until it is changed), so that no answer an older build cached
// is printed by a newer one.
const renderVersion = 2

// Renderer is one format of the report: render turns the reports into
// the bytes printed; Name (a file name: text, json, markdown) keys its
// cache file.
type Renderer struct {
	Name   string
	Render func(target string, reps []Report) []byte
}

// Rendered writes to w the answer r renders for sel, through the
// rendered-answer cache, and reports whether any document is drifted or
// missing (what --strict reads). A cached answer is copied from its file
// in small pieces: reading the 3.7 MB into fresh memory first cost a
// warm run more than the rest of its work. writeErr is a cache file that
// could not be written: the answer is right all the same.
func Rendered(eng *gitvault.Engine, sel Selection, r Renderer, w io.Writer) (stale bool, writeErr, err error) {
	if sel.Rev != "" {
		return renderedAt(eng, sel, r, w)
	}
	s, err := selectDocs(eng, sel)
	if err != nil {
		return false, nil, err
	}
	defer s.tr.Close()
	return s.rendered(r, nil, w)
}

// renderedAt is Rendered for --rev. Every document of the selection is
// read from the target's tree, so the target, the shallow boundary and
// the selection's arguments determine the documents (and so their
// verdict keys): a warm run proves its answer by that key (revKey)
// alone, without reading the pages' tree or computing a thousand keys
// (issue 18, "warm under 50 ms": half of the warm run's own work). Where
// that key does not match, the answer is looked up by the documents'
// keys, which a work-tree run shares.
func renderedAt(eng *gitvault.Engine, sel Selection, r Renderer, w io.Writer) (stale bool, writeErr, err error) {
	repo, tr, target, err := openAt(eng, sel.Rev)
	if err != nil {
		return false, nil, err
	}
	defer tr.Close()
	want, err := pageArgs(sel.Pages)
	if err != nil {
		return false, nil, err
	}
	// A cache directory or shallow file that cannot be read is reported
	// by the full path below, in the order it always was.
	var revKey []byte
	dir, derr := eng.WS.LocalCacheDir("stale")
	shallow, serr := shallowKey(repo)
	if derr == nil && serr == nil {
		revKey = renderedRevKey(r.Name, target, shallow, want, sel.Memories)
		if stale, ok, err := copyRendered(filepath.Join(dir, "rendered-"+r.Name), nil, revKey, w); ok || err != nil {
			return stale, nil, err
		}
	}
	s, err := selectFrom(eng, sel, repo, tr, target, want)
	if err != nil {
		return false, nil, err
	}
	return s.rendered(r, revKey, w)
}

// rendered is Rendered of the selection; revKey (nil outside --rev) is
// kept with the answer written, beside the documents' key.
func (s *selection) rendered(r Renderer, revKey []byte, w io.Writer) (stale bool, writeErr, err error) {
	keys, err := cacheKeys(s.repo, s.target, s.docs)
	if err != nil {
		return false, nil, err
	}
	key := renderedKey(r.Name, s.target, keys)
	path := filepath.Join(s.dir, "rendered-"+r.Name)
	if stale, ok, err := copyRendered(path, key, nil, w); ok || err != nil {
		return stale, nil, err
	}
	// The two caches are written beside the work that follows them, not
	// before it: the verdicts while the answer is rendered, the answer
	// while it is printed. Each write waits for its file and its directory
	// to reach the disk, and on a cold run of a large vault (3.7 MB of
	// answer) those waits were a tenth of the wall time on one core while
	// the other idled. Both are done before this returns, their errors
	// reported as before (the verdicts' first).
	var verdicts sync.WaitGroup
	var verdictsErr error
	reps, _, err := s.checkKeeping(keys, func(cf *cacheFile) error {
		verdicts.Go(func() { verdictsErr = s.writeVerdicts(cf) })
		return nil
	})
	if err != nil {
		verdicts.Wait()
		return false, nil, err
	}
	out := r.Render(s.target, reps)
	for _, rep := range reps {
		if rep.Verdict.Stale() {
			stale = true
			break
		}
	}
	renderedErr := make(chan error, 1)
	go func() { renderedErr <- writeRendered(path, key, revKey, stale, out) }()
	_, err = w.Write(out)
	verdicts.Wait()
	writeErr = verdictsErr
	if werr := <-renderedErr; writeErr == nil {
		writeErr = werr
	}
	if err != nil {
		return false, writeErr, err
	}
	return stale, writeErr, nil
}

// buildID names the running binary's build, from its build information:
// the module version and, for a build from a Git checkout, its commit,
// time and whether the checkout had changes. Read on first use: every
// process would pay for it at init (TestInitHeavyList).
var buildID = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	id := bi.Main.Path + " " + bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision", "vcs.time", "vcs.modified":
			id += " " + s.Key + "=" + s.Value
		}
	}
	return id
})

func renderedKey(name, target string, keys []string) []byte {
	h := sha256.New()
	for _, s := range []string{"rendered", strconv.Itoa(renderVersion), strconv.Itoa(cacheVersion), buildID(), name, target,
		strconv.Itoa(len(keys))} {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	for _, k := range keys {
		h.Write([]byte(k)) // fixed length: hex sha256
	}
	return h.Sum(nil)
}

// renderedRevKey is the key of a --rev answer: the format, the renderer
// and the build as in renderedKey, and what determines the documents at
// a target and their verdict keys (docKey: the target, the shallow
// boundary; the page arguments, read by PageArg, and --memories).
func renderedRevKey(name, target, shallow string, pages []string, memories bool) []byte {
	h := sha256.New()
	for _, s := range []string{"rendered-rev", strconv.Itoa(renderVersion), strconv.Itoa(cacheVersion), buildID(), name, target,
		shallow, strconv.FormatBool(memories), strconv.Itoa(len(pages))} {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	for _, p := range pages {
		h.Write([]byte(strconv.Itoa(len(p)) + ":" + p))
	}
	return h.Sum(nil)
}

// renderedHead is the length of a rendered file's header: magic, key,
// the --rev key (zeros when a work-tree run wrote it), stale flag, the
// answer's length (8 bytes, big-endian).
var renderedHead = len(renderedMagic) + 2*sha256.Size + 1 + 8

// copyRendered copies the cached answer of path to w when its key is
// key or its --rev key is revKey (either nil: not compared) (ok). err is
// a failure after the answer began to be written.
func copyRendered(path string, key, revKey []byte, w io.Writer) (stale, ok bool, err error) {
	f, err := fsx.OpenNoFollow(path)
	if err != nil {
		return false, false, nil
	}
	defer f.Close()
	id, err := f.Stat()
	if err != nil || !id.IsRegular() || id.Size < int64(renderedHead) {
		return false, false, nil
	}
	head := make([]byte, renderedHead)
	if _, err := io.ReadFull(&f, head); err != nil {
		return false, false, nil
	}
	m, r, k := len(renderedMagic), len(renderedMagic)+sha256.Size, len(renderedMagic)+2*sha256.Size
	if !bytes.Equal(head[:m], renderedMagic) || head[k] > 1 ||
		binary.BigEndian.Uint64(head[k+1:]) != uint64(id.Size)-uint64(renderedHead) {
		return false, false, nil
	}
	if !(key != nil && bytes.Equal(head[m:r], key) || revKey != nil && bytes.Equal(head[r:k], revKey)) {
		return false, false, nil
	}
	// The file is replaced whole (rename), never written in place: the
	// open file is the answer its header describes, to its end.
	n, err := f.CopyTo(w, make([]byte, 64<<10))
	if err != nil {
		return false, true, fmt.Errorf("Cannot copy the cached answer %s: %s", path, err)
	}
	if n != id.Size-int64(renderedHead) {
		return false, true, fmt.Errorf("Cannot copy the cached answer %s: it changed while read", path)
	}
	return head[k] == 1, true, nil
}

func writeRendered(path string, key, revKey []byte, stale bool, out []byte) error {
	if revKey == nil {
		revKey = make([]byte, sha256.Size)
	}
	b := make([]byte, 0, renderedHead)
	b = append(append(append(b, renderedMagic...), key...), revKey...)
	if stale {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(len(out)))
	return fsx.WriteFileAtomicParts(path, b, out)
}
