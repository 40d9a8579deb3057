package forgetest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// installEnv is the environment of action.yml's install step, pointed at
// the loopback server.
func installEnv(s *server, cache, tmp, out, version string, extra ...string) []string {
	return append([]string{
		"GE_VERSION=" + version,
		"GIT_ECHOES_DOWNLOAD_URL=" + s.URL + "/download",
		"GIT_ECHOES_RELEASES_API=" + s.URL + "/api",
		"RUNNER_TOOL_CACHE=" + cache,
		"RUNNER_TEMP=" + tmp,
		"GITHUB_OUTPUT=" + out,
	}, extra...)
}

func runnerArch() string {
	if runtime.GOARCH == "arm64" {
		return "arm64"
	}
	return "x64"
}

func TestInstallRelease(t *testing.T) {
	g := testenv.TempGit(t)
	rel := hostRelease(t)
	s := newServer(t, rel.Root)
	cache, tmp := t.TempDir(), t.TempDir()
	out := filepath.Join(tmp, "output")

	r := runScript(t, g, tmp, installEnv(s, cache, tmp, out, rel.Tag), "install.sh")
	if r.Code != 0 {
		t.Fatalf("install %s: %s", rel.Tag, r)
	}
	dir := filepath.Join(cache, "git-echoes", rel.Version, runnerArch())
	exe := filepath.Join(dir, "git-echoes"+exeSuffix())
	o := readOutputs(t, out)
	if o["path"] != exe || o["version"] != rel.Version {
		t.Fatalf("outputs %v, want path %s version %s", o, exe, rel.Version)
	}
	if _, err := os.Stat(dir + ".complete"); err != nil {
		t.Fatalf("no tool-cache marker: %v", err)
	}
	if !strings.Contains(r.Stderr, "verified git-echoes_"+rel.Version+"_") {
		t.Errorf("no verification message: %s", r)
	}
	v := runCmd(t, g, tmp, nil, exe, "version")
	if v.Code != 0 || !strings.Contains(v.Stdout, rel.Version) {
		t.Fatalf("installed binary: %s", v)
	}

	// Second run: the tool cache, no download (the archives are gone).
	if err := os.RemoveAll(filepath.Join(rel.Root, rel.Tag)); err != nil {
		t.Fatal(err)
	}
	r = runScript(t, g, tmp, installEnv(s, cache, tmp, out, rel.Version), "install.sh")
	if r.Code != 0 || !strings.Contains(r.Stderr, "cached: "+dir) {
		t.Fatalf("cached install: %s", r)
	}
	// An interrupted install (no marker) is not taken for a cached one.
	os.Remove(dir + ".complete")
	r = runScript(t, g, tmp, installEnv(s, cache, tmp, out, rel.Version), "install.sh")
	if r.Code == 0 || !strings.Contains(r.Stderr, "unknown version "+rel.Tag) {
		t.Fatalf("install without marker and without the release: %s", r)
	}
}

func TestInstallRefusesTamperedArchive(t *testing.T) {
	g := testenv.TempGit(t)
	rel := hostRelease(t)
	dir := filepath.Join(rel.Root, rel.Tag)
	entries, _ := os.ReadDir(dir)
	var archive string
	for _, e := range entries {
		if strings.Contains(e.Name(), "_"+runtime.GOOS+"_"+runtime.GOARCH+".") {
			archive = filepath.Join(dir, e.Name())
		}
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x01
	writeFile(t, archive, data)
	s := newServer(t, rel.Root)
	cache, tmp := t.TempDir(), t.TempDir()
	r := runScript(t, g, tmp, installEnv(s, cache, tmp, filepath.Join(tmp, "output"), rel.Tag), "install.sh")
	if r.Code == 0 || !strings.Contains(r.Stderr, "checksum mismatch for "+filepath.Base(archive)) ||
		!strings.Contains(r.Stdout, "::error title=git-echoes install::checksum mismatch") {
		t.Fatalf("tampered archive: %s", r)
	}
	if _, err := os.Stat(filepath.Join(cache, "git-echoes")); !os.IsNotExist(err) {
		t.Fatalf("a refused archive left something in the tool cache: %v", err)
	}
	if o := readOutputs(t, filepath.Join(tmp, "output")); o["path"] != "" {
		t.Fatalf("a refused install set outputs: %v", o)
	}
}

func TestInstallVersions(t *testing.T) {
	g := testenv.TempGit(t)
	rel := hostRelease(t)
	s := newServer(t, rel.Root)
	tmp := t.TempDir()
	install := func(version string, extra ...string) result {
		return runScript(t, g, tmp, installEnv(s, t.TempDir(), tmp, filepath.Join(tmp, "output"), version, extra...), "install.sh")
	}

	// Unknown versions fail clearly.
	if r := install("v9.9.9"); r.Code == 0 || !strings.Contains(r.Stderr, "unknown version v9.9.9") || !strings.Contains(r.Stderr, "HTTP 404") {
		t.Errorf("unknown version: %s", r)
	}
	if r := install("main"); r.Code == 0 || !strings.Contains(r.Stderr, "version 'main' is not a release") {
		t.Errorf("a branch as version: %s", r)
	}
	// The default: the action's own ref.
	if r := install("", "GE_ACTION_REF="+rel.Tag); r.Code != 0 || !strings.Contains(r.Stderr, "version: the action's ref, "+rel.Tag) {
		t.Errorf("version from the action's ref: %s", r)
	}
	if r := install(""); r.Code == 0 || !strings.Contains(r.Stderr, "no version") {
		t.Errorf("no version and no ref: %s", r)
	}

	// latest: the releases API's latest release.
	s.api["/releases/latest"] = fmt.Sprintf(`{"tag_name": %q, "draft": false}`, rel.Tag)
	if r := install("latest"); r.Code != 0 || readOutputs(t, filepath.Join(tmp, "output"))["version"] != rel.Version {
		t.Errorf("latest: %s", r)
	}
	delete(s.api, "/releases/latest")
	if r := install("latest"); r.Code == 0 || !strings.Contains(r.Stderr, "cannot resolve version latest") {
		t.Errorf("latest without an answer: %s", r)
	}

	// A release line (uses: ...@v1): its newest release, compared as
	// numbers (v1.10.0 after v1.9.0), pre-releases left out. v1.10.0 is not
	// served, so the 404 names the tag chosen.
	s.api["/releases"] = `[{"tag_name":"v1.9.0"},{"tag_name":"v1.11.0-rc.1"},{"tag_name":"v1.10.0"},{"tag_name":"v2.0.0"},{"tag_name":"v0.99.0"}]`
	if r := install("v1"); r.Code == 0 || !strings.Contains(r.Stderr, "unknown version v1.10.0") {
		t.Errorf("release line v1: %s", r)
	}
	if r := install("v1.9"); r.Code == 0 || !strings.Contains(r.Stderr, "unknown version v1.9.0") {
		t.Errorf("release line v1.9: %s", r)
	}
	if r := install("v3"); r.Code == 0 || !strings.Contains(r.Stderr, "no release v3.x") {
		t.Errorf("release line without releases: %s", r)
	}
	major := strings.SplitN(rel.Version, ".", 2)[0]
	s.api["/releases"] = fmt.Sprintf(`[{"tag_name":%q},{"tag_name":"v%s.999.0-rc.1"}]`, rel.Tag, major)
	r := install("v" + major)
	if strings.Contains(rel.Version, "-") {
		// A snapshot's version is a pre-release: never picked for a line.
		if r.Code == 0 || !strings.Contains(r.Stderr, "no release v"+major+".x") {
			t.Errorf("release line with only a pre-release: %s", r)
		}
	} else if r.Code != 0 || readOutputs(t, filepath.Join(tmp, "output"))["version"] != rel.Version {
		t.Errorf("release line v%s: %s", major, r)
	}
}

// TestInstallArchiveNames asks for every runner OS and architecture: each
// asks for the archive name .goreleaser.yaml gives it. With the snapshot
// release every one is there; the binaries of other platforms do not run
// here, which the script says after verifying and unpacking them.
func TestInstallArchiveNames(t *testing.T) {
	g := testenv.TempGit(t)
	rel := hostRelease(t)
	s := newServer(t, rel.Root)
	sums, err := os.ReadFile(filepath.Join(rel.Root, rel.Tag, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	snapshot := os.Getenv("GIT_ECHOES_RELEASE_DIR") != ""
	for _, c := range []struct{ runnerOS, runnerArch, archive string }{
		{"Linux", "X64", "linux_amd64.tar.gz"},
		{"Linux", "ARM64", "linux_arm64.tar.gz"},
		{"macOS", "X64", "darwin_amd64.tar.gz"},
		{"macOS", "ARM64", "darwin_arm64.tar.gz"},
		{"Windows", "X64", "windows_amd64.zip"},
		{"Windows", "ARM64", "windows_arm64.zip"},
	} {
		name := "git-echoes_" + rel.Version + "_" + c.archive
		tmp := t.TempDir()
		r := runScript(t, g, tmp, installEnv(s, t.TempDir(), tmp, filepath.Join(tmp, "output"), rel.Tag,
			"RUNNER_OS="+c.runnerOS, "RUNNER_ARCH="+c.runnerArch), "install.sh")
		listed := strings.Contains(string(sums), "  "+name+"\n")
		switch {
		case snapshot && !listed:
			t.Errorf("%s/%s: the snapshot release has no %s", c.runnerOS, c.runnerArch, name)
		case listed:
			if !strings.Contains(r.Stderr, "verified "+name) {
				t.Errorf("%s/%s: %s not verified: %s", c.runnerOS, c.runnerArch, name, r)
			}
		default:
			if r.Code == 0 || !strings.Contains(r.Stderr, "has no "+name+" in its SHA256SUMS") {
				t.Errorf("%s/%s: want a refusal naming %s: %s", c.runnerOS, c.runnerArch, name, r)
			}
		}
	}
}
