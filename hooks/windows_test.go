package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

// Git for Windows has no executable bit to read (Go reports mode 0666 for
// every file there): it runs a hook that begins with "#!". The hook logic
// takes the OS as a parameter so both rules are tested everywhere.
func TestHookRunnableByOS(t *testing.T) {
	const winMode = 0o666 // what os.Lstat reports for any file on Windows
	for _, tc := range []struct {
		data           string
		mode           os.FileMode
		goos           string
		problem, state string
	}{
		{"#!/bin/sh\necho\n", winMode, "windows", "", "shell script; install adds the managed block and keeps its lines"},
		{"#!/bin/sh\necho\n", winMode, "linux", "not executable, so git ignores it", "not executable, so git ignores it; install needs --force"},
		{"#!/bin/sh\necho\n", 0o755, "linux", "", "shell script; install adds the managed block and keeps its lines"},
		{"echo no shebang\n", 0o755, "linux", "", "shell script; install adds the managed block and keeps its lines"},
		{"echo no shebang\n", winMode, "windows", "without a #! line, so Git for Windows does not run it", "without a #! line, so Git for Windows does not run it; install needs --force"},
		{"#!/usr/bin/env python3\n", winMode, "windows", "not a shell script", "not a shell script; install needs --force"},
		{"#!C:\\Program Files\\Git\\bin\\sh.exe\necho\n", winMode, "windows", "", "shell script; install adds the managed block and keeps its lines"},
		{"#!C:/Git/usr/bin/bash.EXE\necho\n", winMode, "windows", "", "shell script; install adds the managed block and keeps its lines"},
		{"#!C:\\Git\\bin\\sh.exe\necho\n", 0o755, "linux", "not a shell script", "not a shell script; install needs --force"},
	} {
		h := &hookFile{name: PreCommit, path: "pre-commit", exists: true, data: []byte(tc.data), mode: tc.mode, begin: -1}
		if got := h.problem(tc.goos); got != tc.problem {
			t.Errorf("%s %q %v: problem %q, want %q", tc.goos, tc.data, tc.mode, got, tc.problem)
		}
		if got := h.status(tc.goos).Detail; got != tc.state {
			t.Errorf("%s %q %v: status %q, want %q", tc.goos, tc.data, tc.mode, got, tc.state)
		}
	}
	// An installed hook is healthy on Windows whatever its mode bits.
	data := []byte("#!/bin/sh\n" + managedBlock(PreCommit, false))
	h := &hookFile{name: PreCommit, exists: true, data: data, mode: 0o666, begin: 0, end: len(data)}
	if st := h.status("windows"); st.State != HookInstalled || st.Detail != "" || h.problem("windows") != "" {
		t.Errorf("installed hook on Windows: %+v, problem %q", st, h.problem("windows"))
	}
	if st := h.status("linux"); st.Detail != "not executable, so git ignores it" {
		t.Errorf("installed non-executable hook on Linux: %+v", st)
	}
}

// On Windows a new pre-commit script would hide an existing pre-commit.exe,
// which Git for Windows runs only when the script is absent.
func TestShadowedExe(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, PreCommit)
	if err := shadowedExe(p, "windows"); err != nil {
		t.Errorf("no .exe: %v", err)
	}
	if err := os.WriteFile(p+".exe", []byte("MZ"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := shadowedExe(p, "windows"); err == nil || !strings.Contains(err.Error(), "pre-commit.exe would no longer run") {
		t.Errorf("with pre-commit.exe: %v", err)
	}
	if err := shadowedExe(p, "linux"); err != nil {
		t.Errorf("on Linux a .exe is just a file: %v", err)
	}
}

// The managed blocks are POSIX sh with LF endings: dash parses them, and
// they run under dash and bash --posix with git-echoes found on a PATH whose
// directory names hold spaces, fail closed without it, and chain a saved
// hook whose path holds spaces.
func TestHookBlocksArePOSIX(t *testing.T) {
	var shells [][]string
	for _, sh := range [][]string{{"dash"}, {"bash", "--posix"}, {"sh"}} {
		if _, err := exec.LookPath(sh[0]); err == nil {
			shells = append(shells, sh)
		}
	}
	if len(shells) == 0 {
		t.Skip("no POSIX shell here")
	}
	for _, name := range GitHooks {
		for _, chained := range []bool{false, true} {
			block := managedBlock(name, chained)
			if strings.Contains(block, "\r") || !strings.HasSuffix(block, "\n") {
				t.Errorf("%s block: not LF-only text", name)
			}
			for _, sh := range shells {
				cmd := exec.Command(sh[0], append(sh[1:], "-n", "-c", block)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s -n %s block: %v\n%s", sh[0], name, err, out)
				}
			}
		}
	}

	work := t.TempDir()
	bin := filepath.Join(work, "Program Files", "git echoes")
	hookDir := filepath.Join(work, "my repo", ".git", "hooks")
	for _, d := range []string{bin, hookDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fake := "#!/bin/sh\necho \"ran: $*\" >> \"$FAKE_LOG\"\nexit \"${FAKE_EXIT:-0}\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git-echoes"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(hookDir, PreCommit)
	if err := os.WriteFile(hook, []byte("#!/bin/sh\n"+managedBlock(PreCommit, true)), 0o755); err != nil {
		t.Fatal(err)
	}
	saved := "#!/bin/sh\necho \"saved: $*\" >> \"$FAKE_LOG\"\n"
	if err := os.WriteFile(hook+savedSuffix, []byte(saved), 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(work, "log")
	for _, sh := range shells {
		run := func(path, exit string) (string, string, int) {
			os.Remove(log)
			cmd := exec.Command(sh[0], append(sh[1:], hook, "arg one")...)
			cmd.Dir = filepath.Join(work, "my repo")
			cmd.Env = []string{"PATH=" + path, "FAKE_LOG=" + log, "FAKE_EXIT=" + exit}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(log)
			return string(got), stderr.String(), code
		}
		std := "/usr/bin:/bin"
		if got, _, code := run(bin+":"+std, "0"); code != 0 || got != "ran: check --staged\nsaved: arg one\n" {
			t.Errorf("%s: passing check: exit %d, log %q", sh[0], code, got)
		}
		if got, _, code := run(bin+":"+std, "1"); code != 1 || got != "ran: check --staged\n" {
			t.Errorf("%s: failing check: exit %d, log %q (the saved hook must not run)", sh[0], code, got)
		}
		if got, stderr, code := run(std, "0"); code != 1 || got != "" || !strings.Contains(stderr, "git-echoes is not on PATH") {
			t.Errorf("%s: no git-echoes: exit %d, log %q, stderr %q", sh[0], code, got, stderr)
		}
	}
}

// Real git runs the installed pre-commit hook, which finds git-echoes on a
// PATH directory whose name holds spaces, passes "check --staged", and
// refuses the commit when the check fails. On Windows this needs Git for
// Windows (its sh resolves git-echoes to git-echoes.exe); the git that the
// wine runner bridges to Linux runs hooks on Linux, so it is skipped there.
func TestHooksRunUnderGit(t *testing.T) {
	sb, repo := gitrepotest.Open(t, gitrepo.Open)
	if runtime.GOOS == "windows" {
		if v := sb.Git(repo.Top(), "--version"); !strings.Contains(v, ".windows.") {
			t.Skipf("not Git for Windows (%s): hooks would not run under its sh", strings.TrimSpace(v))
		}
	}
	if _, err := InstallGitHooks(repo, false); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "Program Files", "git echoes")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(bin, "git-echoes")
	if runtime.GOOS == "windows" {
		fake += ".exe"
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fake, data, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "log")
	top := repo.Top()
	if err := os.WriteFile(filepath.Join(top, "f.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb.Git(top, "add", "f.txt")
	env := func(exit string) []string {
		return []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "FAKE_LOG=" + log, "FAKE_EXIT=" + exit}
	}
	if _, err := sb.Run(top, env("1"), nil, "commit", "-qm", "refused"); err == nil {
		t.Error("commit passed although the check failed")
	}
	if got, _ := os.ReadFile(log); string(got) != "ran: check --staged\n" {
		t.Errorf("the hook ran %q", got)
	}
	if _, err := sb.Run(top, env("0"), nil, "commit", "-qm", "accepted"); err != nil {
		t.Errorf("commit with a passing check: %v", err)
	}
}
