package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestManSynopsisWidth (issue 17): every generated man page's SYNOPSIS,
// rendered by groff at 80 columns, fits 80 columns: the generator wraps the
// usage lines at whole option groups (find's was 229 characters wide).
func TestManSynopsisWidth(t *testing.T) {
	if _, err := exec.LookPath("groff"); err != nil {
		if os.Getenv("CI") == "true" && runtime.GOOS == "linux" {
			t.Fatal("groff is not on PATH (.ci/run installs groff-base)")
		}
		t.Skip("groff is not on PATH")
	}
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "man", "*.1"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no man pages: %v", err)
	}
	for _, p := range pages {
		cmd := exec.Command("groff", "-man", "-Tutf8", "-rLL=80n", "-P", "-cbou")
		cmd.Stdin, _ = os.Open(p)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("groff %s: %v", p, err)
		}
		in := false
		for _, l := range strings.Split(string(out), "\n") {
			if l != "" && l[0] != ' ' {
				in = l == "SYNOPSIS"
				continue
			}
			if w := columns(l); in && w > 80 {
				t.Errorf("%s: SYNOPSIS line of %d columns:\n%s", filepath.Base(p), w, l)
			}
		}
	}
}

// columns is the display width of a rendered line, tabs set every 8.
func columns(l string) int {
	w := 0
	for _, r := range l {
		if r == '\t' {
			w += 8 - w%8
			continue
		}
		w++
	}
	return w
}
