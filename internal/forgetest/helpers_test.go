package forgetest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// testVersion is the version stamped into the binary of the archives the
// tests build themselves; GIT_ECHOES_RELEASE_DIR (set by
// scripts/release-check.sh) replaces them with the snapshot release's.
const testVersion = "1.2.3"

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// TestMain removes the shared build folder at the end.
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

// binary builds git-echoes once, stamped with testVersion as a release is.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = testenv.SharedTempDir("forgetest-bin-")
		if buildErr != nil {
			return
		}
		exe := filepath.Join(buildDir, "git-echoes"+exeSuffix())
		// The flags of a plain go build, so the build cache of go test
		// serves it (-trimpath or CGO_ENABLED would rebuild every package).
		cmd := exec.Command("go", "build", "-ldflags",
			"-X github.com/git-echoes/git-echoes/internal/buildinfo.Version="+testVersion, "-o", exe, "./cmd/git-echoes")
		cmd.Dir = repoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "git-echoes"+exeSuffix())
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// release is a folder served as <url>/<tag>/<archive>: the archives and
// SHA256SUMS of one version.
type release struct {
	Root    string // holds Tag/
	Tag     string
	Version string
}

// hostRelease returns the release to install: scripts/release-check.sh's
// snapshot (GIT_ECHOES_RELEASE_DIR: the seven archives GoReleaser built)
// copied under its tag, or one built here in the same layout
// (.goreleaser.yaml: git-echoes_<version>_<os>_<arch>.tar.gz, .zip on
// Windows, one folder of that name holding the binary and README.md) for
// this host only.
func hostRelease(t *testing.T) release {
	t.Helper()
	requireTools(t)
	root := t.TempDir()
	if dir := os.Getenv("GIT_ECHOES_RELEASE_DIR"); dir != "" {
		sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
		version := ""
		for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
			f := strings.Fields(line)
			if len(f) == 2 && strings.HasSuffix(f[1], "_linux_amd64.tar.gz") {
				version = strings.TrimSuffix(strings.TrimPrefix(f[1], "git-echoes_"), "_linux_amd64.tar.gz")
			}
		}
		if version == "" {
			t.Fatalf("%s/SHA256SUMS names no linux_amd64 archive", dir)
		}
		rel := release{Root: root, Tag: "v" + version, Version: version}
		copyDir(t, dir, filepath.Join(root, rel.Tag))
		return rel
	}
	rel := release{Root: root, Tag: "v" + testVersion, Version: testVersion}
	bin, err := os.ReadFile(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("git-echoes_%s_%s_%s", testVersion, runtime.GOOS, runtime.GOARCH)
	files := map[string][]byte{name + "/git-echoes" + exeSuffix(): bin, name + "/README.md": []byte("# git-echoes\n")}
	var archive string
	var data []byte
	if runtime.GOOS == "windows" {
		archive, data = name+".zip", zipOf(t, files)
	} else {
		archive, data = name+".tar.gz", tarGzOf(t, files)
	}
	dir := filepath.Join(root, rel.Tag)
	writeFile(t, filepath.Join(dir, archive), data)
	sum := sha256.Sum256(data)
	writeFile(t, filepath.Join(dir, "SHA256SUMS"), []byte(hex.EncodeToString(sum[:])+"  "+archive+"\n"))
	return rel
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func tarGzOf(t *testing.T, files map[string][]byte) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range sortedKeys(files) {
		mode := int64(0o644)
		if !strings.HasSuffix(name, ".md") {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(files[name])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(files[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zipOf(t *testing.T, files map[string][]byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedKeys(files) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(files[name])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(to, e.Name()), data)
	}
}

// server is a loopback HTTP server: /download/ serves release roots,
// /api/ answers as GitHub's releases API with the JSON in api.
type server struct {
	*httptest.Server
	mu  sync.Mutex
	api map[string]string // path under /api -> JSON answer
}

func newServer(t *testing.T, root string) *server {
	s := &server{api: map[string]string{}}
	mux := http.NewServeMux()
	mux.Handle("/download/", http.StripPrefix("/download", http.FileServer(http.Dir(root))))
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		body, ok := s.api[strings.TrimPrefix(r.URL.Path, "/api")]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	})
	s.Server = httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(s.Close)
	return s
}

// script runs a bash script of scripts/forge in dir with env on top of an
// isolated Git environment (internal/testenv) and returns stdout, stderr and
// the exit status.
type result struct {
	Stdout, Stderr string
	Code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", r.Code, r.Stdout, r.Stderr)
}

func runScript(t *testing.T, g *testenv.Git, dir string, env []string, name string, args ...string) result {
	t.Helper()
	return runCmd(t, g, dir, env, "bash", append([]string{filepath.Join(repoRoot(), "scripts", "forge", name)}, args...)...)
}

func runCmd(t *testing.T, g *testenv.Git, dir string, env []string, prog string, args ...string) result {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Env = append(g.Environ(),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s: %v", prog, err)
		}
		code = ee.ExitCode()
	}
	return result{stdout.String(), stderr.String(), code}
}

// readOutputs parses a $GITHUB_OUTPUT file of key=value lines (the last
// value of a key wins, as on the runner).
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

// requireTools: the scripts run under bash with curl, jq, git and tar, as
// on GitHub's and GitLab's runners. Missing locally: skip; under CI=true
// (.ci/run installs them): fail. Windows: the scripts run in Git Bash on
// GitHub's Windows runners (.github/workflows/forge.yml); this harness
// passes them Windows paths it does not translate, so it runs on Unix only.
func requireTools(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the forge scripts are run by this harness on Unix only; forge.yml runs the action on Windows")
	}
	for _, tool := range []string{"bash", "curl", "jq", "git", "tar", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required (CI=true): %v", tool, err)
			}
			t.Skipf("%s not found: %v", tool, err)
		}
	}
}
