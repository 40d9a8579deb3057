package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
)

const buildinfoPkg = "github.com/git-echoes/git-echoes/internal/buildinfo"

// goTool finds the go command for the tests that build the real binary.
// They need the toolchain, which a Windows test binary run under wine does
// not have; "go test" puts its own go first on PATH.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" && runtime.GOOS == "linux" {
			t.Fatal("go is not on PATH")
		}
		t.Skip("no go toolchain on PATH to build git-echoes with (a test binary run away from its toolchain)")
	}
	return p
}

// buildEchoes builds this command into dir with extra go build flags and
// returns the binary's path.
func buildEchoes(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	bin := filepath.Join(dir, "git-echoes")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	args := append([]string{"build", "-o", bin}, flags...)
	cmd := exec.Command(goTool(t), append(args, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin
}

func runBin(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", bin, strings.Join(args, " "), err)
	}
	return string(out)
}

type versionReport struct {
	Version, GoVersion, ProtocolVersion, EngineVersion, OS, Arch string
	Commit, Date                                                 *string
	Modified                                                     bool
}

func versionOf(t *testing.T, bin string) versionReport {
	t.Helper()
	var v versionReport
	out := runBin(t, bin, "version", "--format", "json")
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("version --format json: %v\n%s", err, out)
	}
	return v
}

// The release build stamps the version with -ldflags -X on exactly these
// variable names (issue 8: releases); a rename would silently ship
// "(devel)".
func TestVersionLdflagsStamp(t *testing.T) {
	ldflags := "-X " + buildinfoPkg + ".Version=v1.2.3" +
		" -X " + buildinfoPkg + ".Commit=0123456789abcdef0123456789abcdef01234567" +
		" -X " + buildinfoPkg + ".Date=2026-01-02T03:04:05Z"
	bin := buildEchoes(t, t.TempDir(), "-buildvcs=false", "-ldflags="+ldflags)

	v := versionOf(t, bin)
	if v.Version != "v1.2.3" || v.Commit == nil || *v.Commit != "0123456789abcdef0123456789abcdef01234567" ||
		v.Date == nil || *v.Date != "2026-01-02T03:04:05Z" || v.Modified {
		t.Errorf("stamped values not reported: %+v", v)
	}
	if v.GoVersion != runtime.Version() || v.OS != runtime.GOOS || v.Arch != runtime.GOARCH {
		t.Errorf("toolchain or platform: %+v", v)
	}
	if v.ProtocolVersion != gitvault.ProtocolVersion || v.EngineVersion != gitvault.EngineVersion {
		t.Errorf("contract versions: %+v", v)
	}

	text := runBin(t, bin, "--version")
	want := "git-echoes version v1.2.3\n" +
		"  commit:   0123456789abcdef0123456789abcdef01234567\n" +
		"  date:     2026-01-02T03:04:05Z\n" +
		"  go:       " + runtime.Version() + "\n" +
		"  platform: " + runtime.GOOS + "/" + runtime.GOARCH + "\n" +
		"  protocol: EchoesVault Protocol " + gitvault.ProtocolVersion + "\n" +
		"  engine:   " + gitvault.EngineVersion + "\n"
	if text != want {
		t.Errorf("--version:\n got %q\nwant %q", text, want)
	}
	if got := runBin(t, bin, "version"); got != text {
		t.Errorf("version and --version differ:\n%q\n%q", got, text)
	}
}

// Without stamps, a build from a checkout reports the commit Go embeds
// (vcs.revision, vcs.time, vcs.modified), with real git as the referee.
func TestVersionFromCheckout(t *testing.T) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not building from a Git checkout")
	}
	root := strings.TrimSpace(string(top))
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() {
		// cmd/go looks for a .git directory; a linked worktree has a
		// .git file, and Go embeds no VCS information there.
		t.Skip("linked worktree: the go command embeds no VCS information here")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	// -buildvcs=true overrides a GOFLAGS=-buildvcs=false in the environment.
	bin := buildEchoes(t, t.TempDir(), "-buildvcs=true")
	v := versionOf(t, bin)
	if v.Commit == nil || *v.Commit != strings.TrimSpace(string(head)) {
		t.Errorf("commit %v, want %s", v.Commit, head)
	}
	cmd := exec.Command("git", "log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%dT%H:%M:%SZ")
	cmd.Env = append(os.Environ(), "TZ=UTC")
	date, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if v.Date == nil || *v.Date != strings.TrimSpace(string(date)) {
		t.Errorf("date %v, want %s", v.Date, date)
	}
	// Go's vcs.modified is "git status --porcelain" printing anything.
	status, err := exec.Command("git", "status", "--porcelain").Output()
	if err != nil {
		t.Fatal(err)
	}
	if v.Modified != (len(status) > 0) {
		t.Errorf("modified %v, but git status --porcelain printed %q", v.Modified, status)
	}
	// Go 1.24+ derives the main module's version from the commit: a
	// pseudo-version (or the tag) rather than "(devel)".
	if v.Version == "(devel)" || v.Version == "" {
		t.Errorf("version %q from a checkout", v.Version)
	}
}
