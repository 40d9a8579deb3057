package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/jsjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

func TestMemoryReadBodyLimits(t *testing.T) {
	// A 65536-byte body with a trailing newline is accepted (the reference
	// refuses it on raw size although it would store it validly).
	body := strings.Repeat("a", MaxBodyBytes)
	got, err := ReadBody(strings.NewReader(body + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := NewMemory(SaveInput{Title: "t", Body: got}); err != nil || len(m.Body) != MaxBodyBytes {
		t.Fatalf("trimmed 65536-byte body: %v", err)
	}
	if _, err := NewMemory(SaveInput{Title: "t", Body: body + "a"}); err == nil || err.Error() != "memory body is too large (maximum 65536 bytes)." {
		t.Fatalf("65537-byte body: %v", err)
	}
	if _, err := ReadBody(strings.NewReader(strings.Repeat("a", MaxRawBodyInput+1))); err == nil || err.Error() != "memory body is too large (maximum 65536 bytes)." {
		t.Fatalf("oversized stdin: %v", err)
	}
	if got, err := ReadBody(strings.NewReader("\ufeffhello")); err != nil || got != "hello" {
		t.Fatalf("BOM: %q %v", got, err)
	}
}

func TestMemoryReadBodyFileGuards(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("a", MaxRawBodyInput+1))
	if _, err := ReadBodyFile(dir, "big.txt"); err == nil || err.Error() != "--body-file is too large (69633 bytes)." {
		t.Fatalf("big: %v", err)
	}
	// O_NONBLOCK keeps the open from hanging; the FIFO is then refused.
	// (Windows has no FIFOs; a directory takes the same path there.)
	if mkfifo(t, filepath.Join(dir, "fifo")) {
		if _, err := ReadBodyFile(dir, "fifo"); err == nil || err.Error() != "--body-file must be a regular, non-symlink file." {
			t.Fatalf("fifo: %v", err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBodyFile(dir, "sub"); err == nil || err.Error() != "--body-file must be a regular, non-symlink file." {
		t.Fatalf("directory: %v", err)
	}
	testenv.WriteFile(t, filepath.Join(dir, "latin1.txt"), "caf\xe9")
	if _, err := ReadBodyFile(dir, "latin1.txt"); err == nil || err.Error() != "--body-file must contain valid UTF-8 text." {
		t.Fatalf("latin1: %v", err)
	}
	symlinkOrSkip(t, "latin1.txt", filepath.Join(dir, "link"))
	if _, err := ReadBodyFile(dir, "link"); err == nil || !strings.HasPrefix(err.Error(), "ELOOP: too many symbolic links encountered, open '") {
		t.Fatalf("symlink: %v", err)
	}
}

func TestMemorySearchRedactedJSON(t *testing.T) {
	r := testRoots(t)
	writeMemory(t, r, mem("mem_visible"))
	testenv.WriteFile(t, filepath.Join(r.ScopeRoot("team"), "notes", "bad.md"), "junk")
	symlinkOrSkip(t, "bad.md", filepath.Join(r.ScopeRoot("team"), "notes", "link.md"))
	res, err := Search(r, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := jsjson.MarshalCompact(res.RedactedJSON())
	if !strings.HasSuffix(got, `"diagnostics":{"invalidFiles":[],"invalidFileCount":1,"skippedSymlinks":[],"skippedSymlinkCount":1,"scannedBytes":`+itoa(res.Diagnostics.ScannedBytes)+`,"truncated":false,"diagnosticsTruncated":true}}`) {
		t.Fatalf("redacted: %s", got)
	}
	if full := jsjson.MarshalCompact(res.JSON()); !strings.Contains(full, `"team:notes/bad.md"`) || !strings.Contains(full, `"team:notes/link.md"`) {
		t.Fatalf("full: %s", full)
	}
}
