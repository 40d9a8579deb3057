package main

import (
	"github.com/git-echoes/git-echoes/gitvault/gate"
	"testing"
)

// GitHub's toolkit escapes % CR LF in messages and additionally : and , in
// property values; an unescaped comma would split the file property.
func TestGitHubAnnotation(t *testing.T) {
	f := gate.Finding{Path: "EchoesVault/pages/a,b:c%.md", Line: 3, Rule: "page-invalid", Message: "bad: 100%\r\nnext, line"}
	want := "::error file=EchoesVault/pages/a%2Cb%3Ac%25.md,line=3,title=page-invalid::bad: 100%25%0D%0Anext, line\n"
	if got := githubAnnotation(f); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	f.Line = 0
	want = "::error file=EchoesVault/pages/a%2Cb%3Ac%25.md,title=page-invalid::bad: 100%25%0D%0Anext, line\n"
	if got := githubAnnotation(f); got != want {
		t.Errorf("line 0: got %q", got)
	}
}
