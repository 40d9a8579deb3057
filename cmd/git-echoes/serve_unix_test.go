//go:build unix

package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestServeOpenReadOnly runs the real main: `git echoes serve --open` with a
// stand-in xdg-open on PATH that records its arguments. The opener gets the
// printed URL as its only argument; a browser session (token, cookie) loads
// every view; the workspace and the memory vault are byte for byte as before
// (nothing written, no lock taken); SIGINT ends the server with status 0.
func TestServeOpenReadOnly(t *testing.T) {
	ws := t.TempDir()
	if out, err := signalHelper(t, "--workspace", ws, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(ws, "EchoesVault", "pages", "a.md"),
		[]byte("---\ntype: note\nstack: []\nstatus: active\nsummary: A.\n---\n\nSee [[a]].\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	record := filepath.Join(t.TempDir(), "opened")
	opener := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + record + ".tmp && mv " + record + ".tmp " + record + "\n"
	for _, name := range []string{"xdg-open", "open"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(opener), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	before := treeState(t, ws)

	cmd := signalHelper(t, "serve", "--workspace", ws, "--open")
	cmd.Env = append(cmd.Env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL: %v\n%s", err, stderr.String())
	}
	printed := strings.TrimSpace(line)
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64}$`).MatchString(printed) {
		t.Fatalf("printed %q", printed)
	}
	var opened []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if opened, err = os.ReadFile(record); err == nil {
			break
		}
	}
	if string(opened) != printed+"\n" {
		t.Errorf("the opener got %q, want the URL alone", opened)
	}

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	u, _ := url.Parse(printed)
	base := "http://" + u.Host
	resp, err := client.Get(printed)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.String() != base+"/" {
		t.Fatalf("printed URL: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	for _, p := range []string{"/", "/pages", "/page/a", "/daily", "/memories", "/search?q=a", "/graph", "/graph?focus=page:a", "/static/style.css"} {
		resp, err := client.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d %s", p, resp.StatusCode, body)
		}
	}
	// Outside Git: no history section, no review view.
	if resp, err := client.Get(base + "/page/a"); err != nil {
		t.Fatal(err)
	} else {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), `id="hist-h"`) {
			t.Errorf("a history section outside Git")
		}
	}
	if resp, err := client.Get(base + "/review"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("review outside Git: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	// The user scope is not served without --scope user.
	if resp, err := client.Get(base + "/memories?scope=user"); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("user scope without --scope user: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	// Without the cookie, refused.
	resp, err = http.Get(base + "/pages")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %d", resp.StatusCode)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve ended with %v\n%s", err, stderr.String())
	}
	if after := treeState(t, ws); after != before {
		t.Errorf("serve changed the workspace:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// treeState lists every entry below dir with its type, size, mode and
// modification time, and every regular file's bytes.
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + " " + fi.Mode().String() + " " + fi.ModTime().UTC().String() + "\n")
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(data)
			b.WriteString("\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestServePortAndUserScope: --port N listens on that port, and --scope user
// serves the user scope.
func TestServePortAndUserScope(t *testing.T) {
	ws := t.TempDir()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := signalHelper(t, "serve", "--workspace", ws, "--port", port, "--scope", "user")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL: %v\n%s", err, stderr.String())
	}
	printed := strings.TrimSpace(line)
	if !strings.HasPrefix(printed, "http://127.0.0.1:"+port+"/?token=") {
		t.Fatalf("printed %q, want port %s", printed, port)
	}
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := client.Get(strings.Replace(printed, "/?", "/memories?scope=user&", 1))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("user scope with --scope user: %d", resp.StatusCode)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve ended with %v on SIGTERM\n%s", err, stderr.String())
	}
}

// TestServeGitReadOnly: in a Git repository with history, the page history,
// the review and the ranked search answer, and the workspace, its .git
// directory included (no find index under .git/echoes, no page cache, no
// lock), is byte for byte as before.
func TestServeGitReadOnly(t *testing.T) {
	ws := t.TempDir()
	g := testenv.TempGit(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", ws}, args...)...)
		cmd.Env = append(g.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
			"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	if out, err := signalHelper(t, "--workspace", ws, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	pages := filepath.Join(ws, "EchoesVault", "pages")
	page := "---\ntype: note\nstack: []\nstatus: active\nsummary: Deploys.\n---\n\nWe deployed on Fridays.\n"
	if err := os.WriteFile(filepath.Join(pages, "a.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-qm", "Add a")
	if err := os.Remove(filepath.Join(pages, "a.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pages, "b.md"), []byte(strings.Replace(page, "status: active", "status: deprecated", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-qm", "Rename and deprecate")
	before := treeState(t, ws)

	cmd := signalHelper(t, "serve", "--workspace", ws)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL: %v\n%s", err, stderr.String())
	}
	printed := strings.TrimSpace(line)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	if resp, err := client.Get(printed); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	u, _ := url.Parse(printed)
	base := "http://" + u.Host
	for _, c := range []struct {
		path string
		code int
		want []string
	}{
		{"/page/b", 200, []string{`id="hist-h"`, "renamed from a.md", "Ada &lt;ada@example.com&gt;", "added"}},
		{"/review", 200, []string{"from <code>HEAD~1</code> to <code>HEAD</code>", `<span class="tag warn">deprecated</span>`, "renamed from a.md"}},
		{"/review?from=no-such-rev&to=HEAD", 400, []string{"Unknown revision: no-such-rev"}},
		{"/search?q=deploying", 200, []string{"ranked search", `<a href="/page/b">b</a>`}},
		{"/search?q=deploying&mode=literal", 200, []string{"literal search", "No page matches."}},
	} {
		resp, err := client.Get(base + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code {
			t.Errorf("%s: %d, want %d\n%s", c.path, resp.StatusCode, c.code, body)
		}
		for _, w := range c.want {
			if !strings.Contains(string(body), w) {
				t.Errorf("%s lacks %q", c.path, w)
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve ended with %v\n%s", err, stderr.String())
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git", "echoes")); !os.IsNotExist(err) {
		t.Errorf("serve created .git/echoes: %v", err)
	}
	if after := treeState(t, ws); after != before {
		t.Errorf("serve changed the workspace or its .git:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestServePortInUse: a viewer that cannot start fails closed with the
// house error (one JSON line on stderr, exit 2), prints no URL and writes
// nothing.
func TestServePortInUse(t *testing.T) {
	ws := t.TempDir()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	before := treeState(t, ws)
	cmd := signalHelper(t, "serve", "--workspace", ws, "--port", port)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("serve on a busy port: %v, want exit 2\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), `{"ok": false, "error": "`) || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stdout %q, stderr %q: want no URL and one JSON error line", stdout.String(), stderr.String())
	}
	if after := treeState(t, ws); after != before {
		t.Error("a failed start changed the workspace")
	}
}
