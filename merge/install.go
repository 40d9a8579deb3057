package merge

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// Merge driver set-up: `git echoes merge-driver install|uninstall`.
const (
	// MergeDriverName is the merge driver's name in .gitattributes and config.
	MergeDriverName = "echoes-vault"
	// AttributesLine routes pages to the driver.
	AttributesLine = "EchoesVault/pages/*.md merge=" + MergeDriverName
	// MergeDriverCommand is merge.echoes-vault.driver: git-echoes found on
	// PATH through git, so the line holds no path of this machine.
	MergeDriverCommand = "git echoes merge-driver %O %A %B %P"
	mergeDriverLabel   = "EchoesVault page-aware merge (git-echoes)"
)

// MergeDriverCommandFor is the driver command that runs the git-echoes
// binary at bin, or MergeDriverCommand when bin is empty. git runs a merge
// driver through the shell (sh -c; Git for Windows' own sh on Windows), so
// bin is quoted for sh. On Windows its backslashes become slashes, the
// spelling both that sh and Windows accept (C:/Program Files/...). The
// placeholders stay bare: %O %A %B are temporary file names git makes, and
// git shell-quotes %P itself. A bin holding '%' is refused: git expands
// placeholders in the whole command, and how it reads "%%" differs between
// git versions.
func MergeDriverCommandFor(bin, goos string) (string, error) {
	if bin == "" {
		return MergeDriverCommand, nil
	}
	if strings.Contains(bin, "%") {
		return "", fmt.Errorf("cannot use %s as the merge driver: git would expand the %% in its path; install git-echoes elsewhere or on PATH", bin)
	}
	if goos == "windows" {
		bin = strings.ReplaceAll(bin, `\`, "/")
	}
	return shQuote(bin) + " merge-driver %O %A %B %P", nil
}

// shQuote quotes s as one sh word: '…', with each ' written as '"'"'.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// MergeDriverChange reports what the installer did to each file.
type MergeDriverChange struct {
	Attributes, Config string // file paths
	AttributesAction   string // "added", "unchanged", "removed", "absent"
	ConfigAction       string
}

// InstallMergeDriver adds AttributesLine to the work tree's .gitattributes
// (appended, other lines kept) and the merge.echoes-vault section to the
// repository's common config (shared by linked worktrees). Both steps are
// idempotent.
func InstallMergeDriver(repo *gitrepo.Repo) (MergeDriverChange, error) {
	return InstallMergeDriverBinary(repo, "")
}

// InstallMergeDriverBinary is InstallMergeDriver with the driver running
// the git-echoes binary at bin (MergeDriverCommandFor), for git clients
// whose PATH lacks git-echoes. An empty bin is InstallMergeDriver.
func InstallMergeDriverBinary(repo *gitrepo.Repo, bin string) (MergeDriverChange, error) {
	command, err := MergeDriverCommandFor(bin, runtime.GOOS)
	if err != nil {
		return MergeDriverChange{}, err
	}
	return editMergeDriver(repo, true, command)
}

// UninstallMergeDriver removes exactly what InstallMergeDriver adds.
func UninstallMergeDriver(repo *gitrepo.Repo) (MergeDriverChange, error) {
	return editMergeDriver(repo, false, "")
}

func editMergeDriver(repo *gitrepo.Repo, install bool, command string) (MergeDriverChange, error) {
	c := MergeDriverChange{
		Attributes: filepath.Join(repo.Top(), ".gitattributes"),
		Config:     filepath.Join(repo.CommonDir(), "config"),
	}
	var err error
	if c.AttributesAction, err = editAttributes(c.Attributes, install); err != nil {
		return c, err
	}
	c.ConfigAction, err = editGitConfig(c.Config, install, command)
	return c, err
}

func editAttributes(p string, install bool) (string, error) {
	data, exists, err := gitrepo.ReadFileToEdit(p)
	if err != nil {
		return "", err
	}
	lines := splitLines(string(data))
	isOurs := func(l string) bool { return strings.TrimSpace(l) == AttributesLine }
	if install {
		for _, l := range lines {
			if isOurs(l) {
				return "unchanged", nil
			}
		}
		out := data
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, AttributesLine+"\n"...)
		if err := fsx.WriteFileAtomic(p, out); err != nil {
			return "", fmt.Errorf("write %s: %w", p, err)
		}
		return "added", nil
	}
	if !exists {
		return "absent", nil
	}
	var kept []string
	for _, l := range lines {
		if !isOurs(l) {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(lines) {
		return "absent", nil
	}
	if len(kept) == 0 {
		if err := os.Remove(p); err != nil {
			return "", fmt.Errorf("remove %s: %w", p, err)
		}
		return "removed", nil
	}
	if err := fsx.WriteFileAtomic(p, []byte(strings.Join(kept, ""))); err != nil {
		return "", fmt.Errorf("write %s: %w", p, err)
	}
	return "removed", nil
}

// editGitConfig adds or removes the [merge "echoes-vault"] section
// (gitrepo.SetConfigSection, RemoveConfigSection: only that section's
// lines are touched, written through config.lock as git does).
func editGitConfig(p string, install bool, command string) (string, error) {
	if !install {
		removed, err := gitrepo.RemoveConfigSection(p, "merge", MergeDriverName)
		switch {
		case err != nil:
			return "", err
		case removed:
			return "removed", nil
		}
		return "absent", nil
	}
	changed, err := gitrepo.SetConfigSection(p, "merge", MergeDriverName, []gitrepo.ConfigKey{
		{Name: "name", Value: mergeDriverLabel},
		{Name: "driver", Value: command},
	})
	switch {
	case err != nil:
		return "", err
	case changed:
		return "added", nil
	}
	return "unchanged", nil
}
