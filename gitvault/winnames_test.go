package gitvault

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/winname"
)

// treeBytes records every path below root with its mode and, for files,
// its SHA-256. Directory mtimes are left out: taking and releasing the lock
// touches .echoes-vault/ by design (echoes-conformance §6), and the payload is read inside it.
func treeBytes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fi.Mode().String()
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			desc += " " + hex.EncodeToString(sum[:])
		}
		out[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func pagePayload(fields ...string) Payload {
	o := pyjson.NewObj()
	for i := 0; i < len(fields); i += 2 {
		o.Set(fields[i], pyjson.Str(fields[i+1]))
	}
	data := []byte(pyjson.Compact(pyjson.ObjectValue(o)))
	return func() ([]byte, error) { return data, nil }
}

// withWindowsNames makes the engine refuse Windows-only bad names for the
// rest of the test. On Windows it already does, so there the test runs the
// default, unmodified engine (it runs under wine in CI).
func withWindowsNames(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		if !refuseWindowsNames {
			t.Fatal("the engine does not refuse Windows-only names on Windows")
		}
		return
	}
	old := refuseWindowsNames
	refuseWindowsNames = true
	t.Cleanup(func() { refuseWindowsNames = old })
}

// On Windows, upsert and end refuse a page name that cannot exist there,
// with the protocol's error shape, before anything is written: the tree,
// the index, the state and the lock are byte for byte as before. hash and
// the page read refuse it too (CON.md would open the console).
func TestUpsertRefusesWindowsNames(t *testing.T) {
	withWindowsNames(t)
	e := initVault(t)
	root := e.WS.Root
	content := page("A page.", "active")
	if _, err := e.Upsert(pagePayload("filename", "ok", "content", content)); err != nil {
		t.Fatal(err)
	}
	before := treeBytes(t, root)
	for _, tc := range []struct{ filename, msg string }{
		{"CON", "Page filename cannot exist on Windows: 'CON.md' (reserved device name CON)."},
		{"con.md", "Page filename cannot exist on Windows: 'con.md' (reserved device name CON)."},
		{"Aux", "Page filename cannot exist on Windows: 'Aux.md' (reserved device name AUX)."},
		{"nul .md", "Page filename cannot exist on Windows: 'nul .md' (reserved device name NUL)."},
		{"COM1", "Page filename cannot exist on Windows: 'COM1.md' (reserved device name COM1)."},
		{"lpt\u00b2", "Page filename cannot exist on Windows: 'lpt\u00b2.md' (reserved device name LPT\u00b2)."},
		{"CONOUT$", "Page filename cannot exist on Windows: 'CONOUT$.md' (reserved device name CONOUT$)."},
		{"a:b", "Page filename cannot exist on Windows: 'a:b.md' (character ':' is not allowed)."},
		{"what?", "Page filename cannot exist on Windows: 'what?.md' (character '?' is not allowed)."},
		{"x*y", "Page filename cannot exist on Windows: 'x*y.md' (character '*' is not allowed)."},
		{`say "hi"`, `Page filename cannot exist on Windows: 'say "hi".md' (character '"' is not allowed).`},
		{"a<b>c", "Page filename cannot exist on Windows: 'a<b>c.md' (character '<' is not allowed)."},
		{"a|b", "Page filename cannot exist on Windows: 'a|b.md' (character '|' is not allowed)."},
		{"tab\there", "Page filename cannot exist on Windows: 'tab\\there.md' (control character U+0009 is not allowed)."},
		// The protocol's own rules still come first (echoes-conformance §8.1).
		{"../CON", "Unsafe page filename: '../CON'"},
	} {
		_, err := e.Upsert(pagePayload("filename", tc.filename, "content", content))
		if err == nil || err.Error() != tc.msg {
			t.Errorf("upsert %q: %v, want %q", tc.filename, err, tc.msg)
		}
		if _, err := e.Hash(tc.filename); err == nil || err.Error() != tc.msg {
			t.Errorf("hash %q: %v, want %q", tc.filename, err, tc.msg)
		}
		if _, err := e.ReadPage(tc.filename); err == nil || err.Error() != tc.msg {
			t.Errorf("read %q: %v, want %q", tc.filename, err, tc.msg)
		}
		_, err = e.End(func() ([]byte, error) {
			return []byte(`{"dailySummary": "d", "pages": [{"filename": ` + pyjson.Quote(tc.filename) + `, "content": ` + pyjson.Quote(content) + `}]}`), nil
		}, true)
		if err == nil || err.Error() != tc.msg {
			t.Errorf("end %q: %v, want %q", tc.filename, err, tc.msg)
		}
	}
	if after := treeBytes(t, root); !reflect.DeepEqual(after, before) {
		t.Errorf("a refused write changed the tree:\nbefore %v\nafter  %v", before, after)
	}
	// Names that only look alike are fine on Windows too.
	for _, name := range []string{"console", "COM0", "CON-notes", "a.b (c)", "é"} {
		if _, err := e.Upsert(pagePayload("filename", name, "content", content)); err != nil {
			t.Errorf("upsert %q: %v", name, err)
		}
	}
}

// Elsewhere the protocol commands keep the reference's behaviour: such a
// name is accepted (and `check` reports it).
func TestUpsertKeepsProtocolNamesOffWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("these names cannot be created on Windows")
	}
	e := initVault(t)
	for _, name := range []string{"CON", "a:b"} {
		res, err := e.Upsert(pagePayload("filename", name, "content", page("S.", "active")))
		if err != nil {
			t.Fatalf("upsert %q: %v", name, err)
		}
		if got, _ := res.Obj.Get("page"); got.S != filepath.Join(e.WS.Pages, name+".md") {
			t.Errorf("upsert %q wrote %s", name, got.S)
		}
	}
}

// Daily entry names are built by the engine, from the UTC stamp, the kind,
// the normalized agent ([a-z0-9._-], echoes-conformance §13.3) and hex: no agent can make one
// that Windows cannot hold.
func FuzzDailyNamePortable(f *testing.F) {
	for _, s := range []string{"claude", "CON", "aux", "a:b", "x.", "...a...", "com1", "Claude Code", "lpt\u00b9"} {
		f.Add(s)
	}
	ws := &Workspace{Daily: "daily"}
	f.Fuzz(func(t *testing.T, agent string) {
		if !utf8.ValidString(agent) {
			return
		}
		name, err := NormalizeAgent(agent)
		if err != nil {
			return
		}
		p, _, err := ws.dailyEntry(kindScratchpad, "x", &name)
		if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(filepath.ToSlash(p), "daily/")
		if prefix, reason := winname.PathReason(rel); reason != "" {
			t.Fatalf("agent %q gives daily path %q: %s is %s", agent, rel, prefix, reason)
		}
	})
}
