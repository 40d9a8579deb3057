package freshness_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/freshness"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// The citation fields are additional frontmatter fields: the protocol
// (echoes-conformance §9 step 6) skips indented lines, reads every other
// key line only to refuse duplicates, requires type, stack, status and
// summary, and stores strip(content) + "\n" unmodified (step 2, step 10);
// the index is built from the summary alone (echoes-conformance §11). So a page carrying
// sources: and verified: must be stored byte for byte by upsert, kept by
// rebuild-index, and give exactly the index of the same page without
// them. This is tested against our writer, which conforms to the reference
// engine (CONFORMANCE-echoes.md); the reference Python runtime itself is
// not available on this machine.

const bare = "---\ntype: note\nstack: go\nstatus: active\nsummary: \"Where tokens are validated\"\n---\n\nSee `internal/auth/token.go:5-6`.\n"

const cited = "---\ntype: note\nstack: go\nstatus: active\nsummary: \"Where tokens are validated\"\nsources:\n  - internal/auth/token.go:5-6\n  - \"internal/auth/\"\n  - 'docs/auth.md'\nverified: \"0123456789abcdef0123456789abcdef01234567 2026-12-01T10:00:00Z\"\n---\n\nSee `internal/auth/token.go:5-6`.\n"

func engine(t *testing.T) *gitvault.Engine {
	t.Helper()
	e, err := gitvault.Open(gitvault.Options{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		t.Fatal(err)
	}
	return e
}

func upsert(t *testing.T, e *gitvault.Engine, name, content, sha string) {
	t.Helper()
	o := pyjson.NewObj().Set("filename", pyjson.Str(name)).Set("content", pyjson.Str(content))
	if sha != "" {
		o.Set("expectedSha256", pyjson.Str(sha))
	}
	if _, err := e.Upsert(func() ([]byte, error) { return []byte(pyjson.Compact(pyjson.ObjectValue(o))), nil }); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCitationFieldsKeepPageAndIndexBytes(t *testing.T) {
	plain, withFields := engine(t), engine(t)
	upsert(t, plain, "auth.md", bare, "")
	upsert(t, withFields, "auth.md", cited, "")
	pagePath := filepath.Join(withFields.WS.Pages, "auth.md")
	if got := read(t, pagePath); got != cited {
		t.Fatalf("upsert changed the page:\n%q\nwant\n%q", got, cited)
	}
	wantIndex := read(t, plain.WS.Index)
	if got := read(t, withFields.WS.Index); got != wantIndex {
		t.Fatalf("the fields changed the index:\n%s\nwant\n%s", got, wantIndex)
	}
	// Replacing the page with itself and rebuilding the index keep both.
	h, err := withFields.Hash("auth.md")
	if err != nil {
		t.Fatal(err)
	}
	sha, _ := h.Obj.Get("sha256")
	upsert(t, withFields, "auth.md", cited, sha.S)
	if _, err := withFields.RebuildIndex(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, pagePath); got != cited {
		t.Fatalf("second upsert/rebuild-index changed the page: %q", got)
	}
	if got := read(t, withFields.WS.Index); got != wantIndex {
		t.Fatalf("rebuild-index changed the index:\n%s", got)
	}
	// What confirm writes is such a page too: SetVerified on the bare page
	// goes through upsert unchanged and leaves the index as it was.
	text, err := freshness.SetVerified(bare, strings.Repeat("a", 40), "2026-12-01T10:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	h, _ = plain.Hash("auth.md")
	sha, _ = h.Obj.Get("sha256")
	upsert(t, plain, "auth.md", text, sha.S)
	if got := read(t, filepath.Join(plain.WS.Pages, "auth.md")); got != text {
		t.Fatalf("upsert changed the confirmed page: %q", got)
	}
	if got := read(t, plain.WS.Index); got != wantIndex {
		t.Fatalf("confirm's field changed the index:\n%s", got)
	}
	if c, d, ok := freshness.Verified(text); !ok || c != strings.Repeat("a", 40) || d != "2026-12-01T10:00:00Z" {
		t.Fatalf("Verified(%q) = %q %q %v", text, c, d, ok)
	}
	// Setting it again replaces the line in place.
	again, err := freshness.SetVerified(text, strings.Repeat("b", 40), "2026-12-02T10:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(again, "verified:") != 1 || !strings.Contains(again, strings.Repeat("b", 40)) {
		t.Fatalf("SetVerified again: %q", again)
	}
}
