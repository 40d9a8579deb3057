package forgetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// newStaleFixture is the pull request of issue 18's review flow: at the
// base a page cites src/token.go; the pull request changes that file and
// leaves the page alone; main moves on elsewhere.
func newStaleFixture(t *testing.T) *fixture {
	requireTools(t)
	f := &fixture{t: t, g: testenv.TempGit(t), bin: binary(t), tmp: t.TempDir()}
	up := filepath.Join(t.TempDir(), "upstream")
	f.upstream = up
	os.MkdirAll(up, 0o755)
	f.git(up, "init", "-q", "-b", "main")
	if r := runCmd(t, f.g, up, nil, f.bin, "init"); r.Code != 0 {
		t.Fatalf("git echoes init: %s", r)
	}
	writeFile(t, filepath.Join(up, "src/token.go"), []byte("package src\n\nfunc Validate() {}\n"))
	writeFile(t, filepath.Join(up, "EchoesVault/pages/auth-flow.md"),
		[]byte(fmt.Sprintf(goodPage, "Tokens are validated in src/token.go.", "Validation lives in `src/token.go`.")))
	f.git(up, "add", "-A")
	f.git(up, "commit", "-qm", "base")
	f.git(up, "checkout", "-qb", "memory")
	writeFile(t, filepath.Join(up, "src/token.go"), []byte("package src\n\nfunc Validate() { rotate() }\n"))
	f.git(up, "commit", "-qam", "rotate keys on validation")
	f.head = f.git(up, "rev-parse", "HEAD")
	f.git(up, "checkout", "-q", "main")
	writeFile(t, filepath.Join(up, "src/main.go"), []byte("package main\n"))
	f.git(up, "add", "-A")
	f.git(up, "commit", "-qm", "main moves on")
	f.base = f.git(up, "rev-parse", "HEAD")
	f.git(up, "checkout", "-q", "--detach")
	f.git(up, "merge", "-q", "--no-ff", "-m", "Merge memory into main", "memory")
	f.merge = f.git(up, "rev-parse", "HEAD")
	f.git(up, "update-ref", "refs/pull/7/merge", f.merge)
	f.git(up, "update-ref", "refs/pull/7/head", f.head)
	f.git(up, "checkout", "-q", "main")
	f.eventPath = f.event(false)
	return f
}

// TestGitHubMemoryStale: the action gates the pull request's range, so
// the page that cites the changed code is a memory-stale warning (an
// annotation, the outputs' count, the summary's findings and the review),
// which fails the gate only with strict; a push has no range and no such
// warning.
func TestGitHubMemoryStale(t *testing.T) {
	f := newStaleFixture(t)
	api := &commentAPI{}
	f.apiURL = api.serve(t)
	dir := f.checkout("1")
	r, out, summary := f.action(dir, "GE_COMMENT=true", "GE_TOKEN=write")
	if r.Code != 0 || out["result"] != "passed" || out["warnings"] != "1" || out["errors"] != "0" {
		t.Fatalf("memory-stale is a warning: %s, outputs %v", r, out)
	}
	ann := "::warning file=EchoesVault/pages/auth-flow.md,line=7,title=memory-stale::cites src/token.go, which this change modified in 1 commit (" + f.head[:7] + " 'rotate keys on validation')"
	if !strings.Contains(r.Stdout, ann) {
		t.Errorf("no annotation %q: %s", ann, r)
	}
	for _, want := range []string{
		"| warning | EchoesVault/pages/auth-flow.md | 7 | memory-stale |",
		"> memory-stale: 1 page the change did not update cites code it changed",
		"| <code>auth-flow.md</code> | <code>src/token.go</code> | modified | <code>" + f.head[:7] + "</code> rotate keys on validation |",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	if len(api.comments) != 1 || !strings.Contains(api.comments[0]["body"].(string), "memory-stale") {
		t.Errorf("the comment does not list the stale page: %v", api.comments)
	}
	r, out, _ = f.action(dir, "GE_STRICT=true")
	if r.Code != 1 || out["result"] != "failed" {
		t.Errorf("strict: memory-stale fails the gate: %s, outputs %v", r, out)
	}
	// The merge commit GitHub prepared is gated over the same range.
	r, out, _ = f.action(dir, "GE_REV="+f.merge, "GE_REVIEW=false")
	if r.Code != 0 || out["warnings"] != "1" || !strings.Contains(r.Stdout, "title=memory-stale::") {
		t.Errorf("merge commit: %s, outputs %v", r, out)
	}
	// A push: one commit, no range, no memory-stale.
	push := filepath.Join(t.TempDir(), "push.json")
	writeFile(t, push, []byte(fmt.Sprintf(`{"ref":"refs/heads/main","before":%q,"after":%q,"repository":{"full_name":"acme/app"}}`, f.base, f.head)))
	f.eventPath = push
	r, out, _ = f.action(dir, "GITHUB_EVENT_NAME=push", "GITHUB_SHA="+f.head, "GE_STRICT=true")
	if r.Code != 0 || out["warnings"] != "0" || strings.Contains(r.Stdout, "memory-stale") {
		t.Errorf("push: %s, outputs %v", r, out)
	}
}
