package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// Git hooks managed by `git echoes hooks install`. pre-merge-commit closes
// the gap pre-commit leaves: a merge that git (or the page merge driver)
// completes on its own commits without running pre-commit, and two clean
// sides can still collide (Foo.md added on one branch, foo.md on the other).
const (
	PreCommit      = "pre-commit"
	PreMergeCommit = "pre-merge-commit"
	PostMerge      = "post-merge"
)

// GitHooks lists the managed Git hooks in the order they are reported.
var GitHooks = []string{PreCommit, PreMergeCommit, PostMerge}

// savedSuffix names the copy of a foreign hook that --force moved aside;
// the managed hook runs it after its own block, uninstall moves it back.
const savedSuffix = ".git-echoes-saved"

func blockBegin(name string) string { return "# >>> git-echoes " + name + " >>>" }
func blockEnd(name string) string   { return "# <<< git-echoes " + name + " <<<" }

// blockBody is the managed shell code of each hook. pre-commit fails
// closed: no git-echoes on PATH means no commit. post-merge never fails
// the merge and says nothing when the repository has no vault.
//
// The code is POSIX sh with LF line endings, so it runs under dash, bash
// and Git for Windows' sh (MSYS2 bash), which git uses for every hook
// there. It calls git-echoes by name: on Windows that shell's command
// lookup, like its exec, finds git-echoes.exe on PATH (Cygwin-style .exe
// completion), and PATH entries are already translated to POSIX form, so no
// Windows path ever appears in the script.
var blockBody = map[string]string{
	PreCommit: `# Managed by "git echoes hooks install"; "git echoes hooks uninstall" removes it.
# Refuses the commit when the staged EchoesVault content fails "git echoes check --staged".
if command -v git-echoes >/dev/null 2>&1; then
	git-echoes check --staged || exit 1
else
	echo "git-echoes pre-commit: git-echoes is not on PATH, so the EchoesVault check cannot run; commit refused. Install git-echoes, or bypass once with: git commit --no-verify" >&2
	exit 1
fi
`,
	PreMergeCommit: `# Managed by "git echoes hooks install"; "git echoes hooks uninstall" removes it.
# Refuses an automatic merge commit when the merged EchoesVault content fails "git echoes check --staged".
if command -v git-echoes >/dev/null 2>&1; then
	git-echoes check --staged || exit 1
else
	echo "git-echoes pre-merge-commit: git-echoes is not on PATH, so the EchoesVault check cannot run; merge commit refused. Install git-echoes, or bypass once with: git merge --no-verify" >&2
	exit 1
fi
`,
	PostMerge: `# Managed by "git echoes hooks install"; "git echoes hooks uninstall" removes it.
# Refreshes the ignored EchoesVault index after a merge; never fails the merge.
if [ -f EchoesVault/.echoes-vault.json ] && command -v git-echoes >/dev/null 2>&1; then
	git-echoes hydrate >/dev/null || echo "git-echoes post-merge: hydrate failed (the merge itself succeeded); run: git echoes hydrate" >&2
fi
`,
}

// chainLine runs the foreign hook that --force moved aside, as git would
// have run it (only when executable).
var chainLine = map[string]string{
	PreCommit:      `if [ -x "$0` + savedSuffix + `" ]; then "$0` + savedSuffix + `" "$@" || exit $?; fi` + "\n",
	PreMergeCommit: `if [ -x "$0` + savedSuffix + `" ]; then "$0` + savedSuffix + `" "$@" || exit $?; fi` + "\n",
	PostMerge:      `if [ -x "$0` + savedSuffix + `" ]; then "$0` + savedSuffix + `" "$@"; fi` + "\n",
}

func managedBlock(name string, chained bool) string {
	b := blockBegin(name) + "\n" + blockBody[name]
	if chained {
		b += chainLine[name]
	}
	return b + blockEnd(name) + "\n"
}

// HookState is what a hook file holds.
type HookState string

const (
	HookInstalled HookState = "installed" // the managed block is present
	HookAbsent    HookState = "absent"    // no hook file
	HookForeign   HookState = "foreign"   // a hook without the managed block
)

// HookStatus describes one hook.
type HookStatus struct {
	Name   string
	Path   string
	State  HookState
	Detail string // why a foreign hook needs --force, or what install/uninstall did
}

// HooksDir returns the directory git runs hooks from: core.hooksPath
// (relative to the work-tree top, "~/" expanded) or the common git
// directory's hooks/, shared by every linked worktree.
func HooksDir(repo *gitrepo.Repo) string {
	if p, ok := repo.ConfigValue("core", "", "hooksPath"); ok && p != "" {
		if p == "~" || strings.HasPrefix(p, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[1:])
			}
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(repo.Top(), p)
		}
		return filepath.Clean(p)
	}
	return filepath.Join(repo.CommonDir(), "hooks")
}

// hookFile is a hook as found on disk.
type hookFile struct {
	name, path string
	exists     bool
	data       []byte
	mode       fs.FileMode
	symlink    bool
	begin, end int // byte offsets of the managed block ([begin, end)); begin < 0 when absent
}

func readHook(dir, name string) (*hookFile, error) {
	h := &hookFile{name: name, path: filepath.Join(dir, name), begin: -1}
	fi, err := os.Lstat(h.path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return nil, fmt.Errorf("inspect hook %s: %w", h.path, err)
	}
	h.exists, h.mode = true, fi.Mode()
	if fi.Mode()&fs.ModeSymlink != 0 {
		h.symlink = true
		return h, nil
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("hook %s is not a regular file", h.path)
	}
	if h.data, err = fsx.ReadFile(h.path); err != nil {
		return nil, fmt.Errorf("read hook %s: %w", h.path, err)
	}
	h.begin, h.end, err = findBlock(h.data, name)
	if err != nil {
		return nil, fmt.Errorf("hook %s: %w", h.path, err)
	}
	return h, nil
}

// findBlock locates the managed block: from the start of its begin line to
// the end of its end line (newline included).
func findBlock(data []byte, name string) (begin, end int, err error) {
	begin, end = -1, -1
	for pos := 0; pos < len(data); {
		next := bytes.IndexByte(data[pos:], '\n')
		lineEnd := len(data)
		if next >= 0 {
			lineEnd = pos + next + 1
		}
		line := strings.TrimRight(string(data[pos:lineEnd]), "\r\n")
		switch {
		case line == blockBegin(name) && begin < 0:
			begin = pos
		case line == blockEnd(name) && begin >= 0 && end < 0:
			end = lineEnd
		}
		pos = lineEnd
	}
	if begin >= 0 && end < 0 {
		return -1, -1, fmt.Errorf("the git-echoes managed block has no end marker %q; fix the file by hand", blockEnd(name))
	}
	return begin, end, nil
}

// hostOS decides how git on this machine chooses to run a hook; tests pass
// other values to the functions that take it.
var hostOS = runtime.GOOS

// shells are interpreters that run the managed block (POSIX sh code).
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ash": true, "mksh": true, "yash": true}

// isShellScript reports whether a hook runs under a POSIX-compatible shell.
// git runs a text hook without "#!" through /bin/sh. On Windows the "#!"
// line may name the interpreter with a Windows path, spaces and an .exe
// suffix (#!C:\Program Files\Git\bin\sh.exe): Git for Windows takes the
// text after the last / or \ of the line, up to a space, as the program
// (compat/mingw.c parse_interpreter).
func isShellScript(data []byte, goos string) bool {
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return false
	}
	if !bytes.HasPrefix(data, []byte("#!")) {
		return true
	}
	line, _, _ := strings.Cut(string(data[2:]), "\n")
	line = strings.TrimSuffix(line, "\r")
	base := path.Base
	if goos == "windows" {
		line = line[strings.LastIndexAny(line, `/\`)+1:]
		base = func(p string) string {
			if len(p) > 4 && strings.EqualFold(p[len(p)-4:], ".exe") {
				p = p[:len(p)-4]
			}
			return p
		}
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return false
	}
	interp := base(fields[0])
	if interp == "env" {
		interp = ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
				interp = base(f)
				break
			}
		}
	}
	return shells[interp]
}

// runnable reports whether git runs the hook file at all. Elsewhere that is
// the executable bit. Windows has no such bit (Go reports 0666), and Git for
// Windows runs a hook that begins with "#!" (run-command.c is_executable),
// through the interpreter that line names.
func (h *hookFile) runnable(goos string) bool {
	if goos == "windows" {
		return bytes.HasPrefix(h.data, []byte("#!"))
	}
	return h.mode&0o111 != 0
}

// notRunnable says why git does not run a hook that runnable rejects.
func notRunnable(goos string) string {
	if goos == "windows" {
		return "without a #! line, so Git for Windows does not run it"
	}
	return "not executable, so git ignores it"
}

// problem says why the hook cannot take the managed block without --force.
func (h *hookFile) problem(goos string) string {
	switch {
	case !h.exists || h.begin >= 0 && !h.symlink && h.runnable(goos):
		return ""
	case h.symlink:
		return "a symbolic link"
	case !isShellScript(h.data, goos):
		return "not a shell script"
	case !h.runnable(goos):
		return notRunnable(goos)
	}
	return ""
}

func (h *hookFile) status(goos string) HookStatus {
	st := HookStatus{Name: h.name, Path: h.path}
	switch {
	case !h.exists:
		st.State = HookAbsent
	case h.begin >= 0:
		st.State = HookInstalled
		if !h.runnable(goos) {
			st.Detail = notRunnable(goos)
		}
	default:
		st.State = HookForeign
		if p := h.problem(goos); p != "" {
			st.Detail = p + "; install needs --force"
		} else {
			st.Detail = "shell script; install adds the managed block and keeps its lines"
		}
	}
	return st
}

// GitHookStatus reports every managed hook of repo.
func GitHookStatus(repo *gitrepo.Repo) ([]HookStatus, error) {
	dir := HooksDir(repo)
	out := make([]HookStatus, 0, len(GitHooks))
	for _, name := range GitHooks {
		h, err := readHook(dir, name)
		if err != nil {
			return nil, err
		}
		out = append(out, h.status(hostOS))
	}
	return out, nil
}

// ForeignHookError refuses to touch a hook that is not ours to edit.
type ForeignHookError struct {
	Path, Reason string
}

func (e *ForeignHookError) Error() string {
	return fmt.Sprintf("existing hook %s is %s; refusing to change it (rerun with --force to move it to %s and run it from the managed hook)",
		e.Path, e.Reason, filepath.Base(e.Path)+savedSuffix)
}

// InstallGitHooks adds the managed block to the pre-commit and post-merge
// hooks. A new hook is a 0755 "#!/bin/sh" script; an existing shell hook
// gets the block after its first line, its own lines kept byte for byte.
// Every hook is checked before the first write: a foreign hook (not a shell
// script, a symlink, or not executable) refuses the whole install unless
// force is set, which moves it aside (name + ".git-echoes-saved") and runs
// it from the managed block.
func InstallGitHooks(repo *gitrepo.Repo, force bool) ([]HookStatus, error) {
	dir := HooksDir(repo)
	var found []*hookFile
	for _, name := range GitHooks {
		h, err := readHook(dir, name)
		if err != nil {
			return nil, err
		}
		if p := h.problem(hostOS); p != "" && !force {
			return nil, &ForeignHookError{Path: h.path, Reason: p}
		}
		if !h.exists {
			if err := shadowedExe(h.path, hostOS); err != nil {
				return nil, err
			}
		}
		found = append(found, h)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create hooks directory: %w", err)
	}
	var out []HookStatus
	for _, h := range found {
		detail, err := installHook(h, hostOS)
		if err != nil {
			return out, err
		}
		out = append(out, HookStatus{Name: h.name, Path: h.path, State: HookInstalled, Detail: detail})
	}
	return out, nil
}

// shadowedExe refuses to create a hook on Windows next to <hook>.exe: Git
// for Windows looks for <hook> first and runs <hook>.exe only when <hook>
// does not exist (find_hook, STRIP_EXTENSION), so our script would silently
// stop the user's program from running.
func shadowedExe(hookPath, goos string) error {
	if goos != "windows" {
		return nil
	}
	exe := hookPath + ".exe"
	if _, err := os.Lstat(exe); err == nil {
		return fmt.Errorf("existing hook %s would no longer run once %s exists (Git for Windows runs the .exe only when the script is absent); refusing to install, even with --force: add \"git echoes check --staged\" to your hook program, or remove it first", exe, filepath.Base(hookPath))
	}
	return nil
}

func installHook(h *hookFile, goos string) (string, error) {
	saved := h.path + savedSuffix
	switch p := h.problem(goos); {
	case !h.exists:
		return "created", writeHook(h.path, []byte("#!/bin/sh\n"+managedBlock(h.name, false)), true)
	case p == notRunnable("linux") && goos != "windows":
		// --force on a disabled shell hook: enable it with the block.
		if err := writeHook(h.path, splice(h, managedBlock(h.name, false)), false); err != nil {
			return "", err
		}
		return "block added; made executable", os.Chmod(h.path, h.mode.Perm()|(h.mode.Perm()&0o444)>>2|0o100)
	case p != "":
		if _, err := os.Lstat(saved); err == nil {
			return "", fmt.Errorf("cannot move the foreign hook %s aside: %s already exists", h.path, saved)
		}
		if err := os.Rename(h.path, saved); err != nil {
			return "", fmt.Errorf("move foreign hook aside: %w", err)
		}
		if err := writeHook(h.path, []byte("#!/bin/sh\n"+managedBlock(h.name, true)), true); err != nil {
			return "", err
		}
		return "foreign hook moved to " + filepath.Base(saved) + " and chained", nil
	}
	// A hook we installed with --force keeps chaining its saved original.
	_, err := os.Lstat(saved)
	block := managedBlock(h.name, err == nil)
	if h.begin >= 0 && string(h.data[h.begin:h.end]) == block {
		return "unchanged", nil
	}
	if err := writeHook(h.path, splice(h, block), false); err != nil {
		return "", err
	}
	if h.begin >= 0 {
		return "block updated", nil
	}
	return "block added", nil
}

// splice returns the hook's bytes with block in place of the managed block,
// or inserted after the "#!" line (at the top without one). The block goes
// first so that a user's "exit 0" cannot skip it, and a failing check stops
// the commit before the user's own steps run.
func splice(h *hookFile, block string) []byte {
	data := h.data
	if h.begin >= 0 {
		return concat(data[:h.begin], []byte(block), data[h.end:])
	}
	at := 0
	var sep []byte
	if bytes.HasPrefix(data, []byte("#!")) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			at = i + 1
		} else {
			at, sep = len(data), []byte("\n")
		}
	}
	return concat(data[:at], sep, []byte(block), data[at:])
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func writeHook(p string, data []byte, create bool) error {
	if err := fsx.WriteFileAtomic(p, data); err != nil {
		return fmt.Errorf("write hook: %w", err)
	}
	if create {
		if err := os.Chmod(p, 0o755); err != nil {
			return fmt.Errorf("make hook executable: %w", err)
		}
	}
	return nil
}

// UninstallGitHooks removes the managed block from each hook, keeping the
// user's lines byte for byte. A hook left with nothing but its "#!" line is
// deleted, and a foreign hook that --force moved aside is moved back.
func UninstallGitHooks(repo *gitrepo.Repo) ([]HookStatus, error) {
	dir := HooksDir(repo)
	var out []HookStatus
	for _, name := range GitHooks {
		h, err := readHook(dir, name)
		if err != nil {
			return out, err
		}
		st := h.status(hostOS)
		if st.State != HookInstalled {
			st.Detail = "nothing to remove"
			out = append(out, st)
			continue
		}
		rest := concat(h.data[:h.begin], h.data[h.end:])
		saved := h.path + savedSuffix
		if onlyShebang(rest) {
			if err := os.Remove(h.path); err != nil {
				return out, fmt.Errorf("remove hook: %w", err)
			}
			st.State, st.Detail = HookAbsent, "removed"
			if _, err := os.Lstat(saved); err == nil {
				if err := os.Rename(saved, h.path); err != nil {
					return out, fmt.Errorf("restore the saved hook: %w", err)
				}
				st.State, st.Detail = HookForeign, "removed; original hook restored"
			}
		} else {
			if err := fsx.WriteFileAtomic(h.path, rest); err != nil {
				return out, fmt.Errorf("write hook: %w", err)
			}
			st.State, st.Detail = HookForeign, "managed block removed; other lines kept"
		}
		out = append(out, st)
	}
	return out, nil
}

// onlyShebang reports whether data holds at most a "#!" line and blank space.
func onlyShebang(data []byte) bool {
	s := string(data)
	if strings.HasPrefix(s, "#!") {
		_, s, _ = strings.Cut(s, "\n")
	}
	return strings.TrimSpace(s) == ""
}
