package freshness

import (
	"bytes"
	"crypto/sha256"
	"path/filepath"
	"runtime/debug"
	"strconv"

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
//	file = renderedMagic key:32 bytes stale:byte answer

var renderedMagic = []byte("echoes-rendered\x00")

// renderVersion names the renderers' output: change it with any change
// to what Text, Markdown or PrettyJSON print (TestRenderVersionPinned
// fails until it is changed), so that no answer an older build cached
// is printed by a newer one.
const renderVersion = 1

// Renderer is one format of the report: render turns the reports into
// the bytes printed; Name (a file name: text, json, markdown) keys its
// cache file.
type Renderer struct {
	Name   string
	Render func(target string, reps []Report) []byte
}

// Rendered is Reports rendered by r, through the rendered-answer cache:
// the answer, and whether any document is drifted or missing (what
// --strict reads). writeErr is a cache file that could not be written:
// the answer is right all the same.
func Rendered(eng *gitvault.Engine, sel Selection, r Renderer) (out []byte, stale bool, writeErr, err error) {
	s, err := selectDocs(eng, sel)
	if err != nil {
		return nil, false, nil, err
	}
	defer s.tr.Close()
	keys, err := cacheKeys(s.repo, s.target, s.docs)
	if err != nil {
		return nil, false, nil, err
	}
	key := renderedKey(r.Name, s.target, keys)
	path := filepath.Join(s.dir, "rendered-"+r.Name)
	if out, stale, ok := readRendered(path, key); ok {
		return out, stale, nil, nil
	}
	reps, writeErr, err := s.check(keys)
	if err != nil {
		return nil, false, nil, err
	}
	out = r.Render(s.target, reps)
	for _, rep := range reps {
		if rep.Verdict.Stale() {
			stale = true
			break
		}
	}
	if werr := writeRendered(path, key, stale, out); writeErr == nil {
		writeErr = werr
	}
	return out, stale, writeErr, nil
}

// buildID names the running binary's build, from its build information:
// the module version and, for a build from a Git checkout, its commit,
// time and whether the checkout had changes.
var buildID = func() string {
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
}()

func renderedKey(name, target string, keys []string) []byte {
	h := sha256.New()
	for _, s := range []string{"rendered", strconv.Itoa(renderVersion), strconv.Itoa(cacheVersion), buildID, name, target,
		strconv.Itoa(len(keys))} {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	for _, k := range keys {
		h.Write([]byte(k)) // fixed length: hex sha256
	}
	return h.Sum(nil)
}

// readRendered returns the cached answer of path when its key is key.
func readRendered(path string, key []byte) (out []byte, stale, ok bool) {
	data, err := fsx.ReadFile(path)
	if err != nil {
		return nil, false, false
	}
	head := len(renderedMagic) + len(key) + 1
	if len(data) < head || !bytes.Equal(data[:len(renderedMagic)], renderedMagic) ||
		!bytes.Equal(data[len(renderedMagic):head-1], key) || data[head-1] > 1 {
		return nil, false, false
	}
	return data[head:], data[head-1] == 1, true
}

func writeRendered(path string, key []byte, stale bool, out []byte) error {
	b := make([]byte, 0, len(renderedMagic)+len(key)+1+len(out))
	b = append(append(b, renderedMagic...), key...)
	if stale {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = append(b, out...)
	return fsx.WriteFileAtomic(path, b)
}
