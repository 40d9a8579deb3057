package hooks

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

func TestIsShellScript(t *testing.T) {
	for s, want := range map[string]bool{
		"#!/bin/sh\necho\n":                   true,
		"#!/bin/bash -e\n":                    true,
		"#!/usr/bin/env bash\n":               true,
		"#!/usr/bin/env -S zsh -f\n":          true,
		"echo no shebang\n":                   true, // git runs it with sh
		"":                                    true,
		"#!/usr/bin/env python3\nprint(1)\n":  false,
		"#!/usr/bin/perl\n":                   false,
		"#!\n":                                false,
		"\x7fELF\x02\x01\x01\x00\x00\x00\x00": false,
		"#!/bin/sh\n\xff\xfe":                 false,
	} {
		if got := isShellScript([]byte(s), "linux"); got != want {
			t.Errorf("isShellScript(%q) = %v, want %v", s, got, want)
		}
	}
}

// Install then uninstall restores every user hook byte for byte, whatever
// its line endings, final newline or shebang.
func TestHookRoundTrip(t *testing.T) {
	for _, user := range []string{
		"#!/bin/sh\necho hi\nexit 0\n",
		"#!/bin/sh\r\necho crlf\r\n",
		"#!/bin/bash\necho no final newline",
		"echo no shebang\n", // Git for Windows does not run it: refused there (TestHookRunnableByOS)
		"#!/bin/sh\n# >>> git-echoes pre-commit >>> lookalike, not a marker line\n",
	} {
		if runtime.GOOS == "windows" && !strings.HasPrefix(user, "#!") {
			continue
		}
		_, repo := gitrepotest.Open(t, gitrepo.Open)
		dir := HooksDir(repo)
		os.MkdirAll(dir, 0o755)
		p := filepath.Join(dir, PreCommit)
		if err := os.WriteFile(p, []byte(user), 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err := InstallGitHooks(repo, false); err != nil {
			t.Fatalf("%q: install: %v", user, err)
		}
		got, _ := os.ReadFile(p)
		if !strings.Contains(string(got), managedBlock(PreCommit, false)) || !strings.HasSuffix(string(got), userBody(user)) {
			t.Errorf("%q: installed hook lost lines:\n%s", user, got)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o700 && runtime.GOOS != "windows" { // no mode bits there
			t.Errorf("%q: mode changed to %v", user, fi.Mode())
		}
		if _, err := UninstallGitHooks(repo); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != user {
			t.Errorf("uninstall: got %q, want %q", got, user)
		}
		if _, err := os.Stat(filepath.Join(dir, PostMerge)); !os.IsNotExist(err) {
			t.Errorf("created post-merge not removed: %v", err)
		}
	}
}

func TestDamagedBlockRefused(t *testing.T) {
	_, repo := gitrepotest.Open(t, gitrepo.Open)
	dir := HooksDir(repo)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, PostMerge), []byte("#!/bin/sh\n"+blockBegin(PostMerge)+"\necho\n"), 0o755)
	if _, err := InstallGitHooks(repo, true); err == nil || !strings.Contains(err.Error(), "no end marker") {
		t.Errorf("install over a damaged block: %v", err)
	}
}

// userBody is the hook without its "#!" line, which the block follows.
func userBody(s string) string {
	if strings.HasPrefix(s, "#!") {
		_, s, _ = strings.Cut(s, "\n")
	}
	return s
}
