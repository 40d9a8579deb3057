package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The spool transport end to end, both halves in one process: the server
// runs the real git for requests the client leaves, and the client gets
// git's own stdout, stderr and exit status back, standard input included.
func TestSpoolRoundTrip(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	spool := t.TempDir()
	done := make(chan error, 1)
	go func() { done <- serve(spool, git) }()

	dir := t.TempDir()
	env := []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(dir, "gitconfig")}
	resp, err := call(spool, &request{Args: []string{"hash-object", "--stdin"}, Dir: dir, Env: env, Stdin: []byte("hello\n")})
	if err != nil {
		t.Fatal(err)
	}
	// git hash-object of "hello\n".
	if got := strings.TrimSpace(string(resp.Stdout)); got != "ce013625030ba8dba906f756967f9e9ca394464a" || resp.Code != 0 {
		t.Fatalf("hash-object: stdout %q code %d stderr %q", got, resp.Code, resp.Stderr)
	}
	resp, err = call(spool, &request{Args: []string{"rev-parse", "--git-dir"}, Dir: dir, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Code != 128 || !strings.Contains(string(resp.Stderr), "not a git repository") {
		t.Fatalf("rev-parse outside a repository: code %d stderr %q", resp.Code, resp.Stderr)
	}
	// Nothing is left behind: each call's files are gone once it returns.
	entries, err := os.ReadDir(spool)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		{
			t.Errorf("left in the spool: %s", e.Name())
		}
	}
	// The server stops when its spool goes, and a client then fails
	// instead of waiting for ever.
	if err := os.RemoveAll(spool); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("serve returned no error after its spool was removed")
	}
	if _, err := call(spool, &request{Args: []string{"--version"}, Dir: dir}); err == nil {
		t.Fatal("call with no spool succeeded")
	}
}

// A request made ready again after the server took it (a client retrying
// a create that Wine reported failed but did) runs once, not twice.
func TestSpoolRunsEachRequestOnce(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	spool := t.TempDir()
	go func() { _ = serve(spool, git) }()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "counted")
	data, err := json.Marshal(&request{Args: []string{"config", "--file", cfg, "--add", "a.b", "v"}, Dir: dir,
		Env: []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}})
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(spool, "1-1")
	waitResp := func() {
		t.Helper()
		for i := 0; i < 2000; i++ {
			if _, err := os.Stat(base + respExt); err == nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatal("no response")
	}
	if err := os.WriteFile(base+reqExt, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+readyExt, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitResp()
	if err := os.Remove(base + respExt); err != nil {
		t.Fatal(err)
	}
	// The retried create, and the request rewritten as a retry would.
	if err := os.WriteFile(base+reqExt, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+readyExt, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(base + readyExt); errors.Is(err, fs.ErrNotExist) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if _, err := os.Stat(base + respExt); err == nil {
		t.Fatal("the request ran a second time")
	}
	out, err := exec.Command(git, "config", "--file", cfg, "--get-all", "a.b").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(out), "v\n"); got != 1 {
		t.Fatalf("git ran %d times for one request: %q", got, out)
	}
}
