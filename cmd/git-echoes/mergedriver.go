package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/merge"
)

func init() { registerCommand("merge-driver", runMergeDriver) }

const mergeDriverUsage = `usage: git echoes merge-driver [--ours-label L] [--base-label L]
                               [--theirs-label L] [--diff3] BASE OURS THEIRS
                               [PATH]
       git echoes merge-driver install [--binary PATH] [--workspace PATH]
       git echoes merge-driver uninstall [--workspace PATH]

As a git merge driver (git passes %O %A %B %P), merges three versions of an
EchoesVault page: frontmatter key by key, the body line by line. The result
replaces OURS (%A) atomically. Whatever cannot be merged safely is left as
standard conflict markers, which "git echoes check" then refuses until a
person resolves them.

install writes "` + merge.AttributesLine + `" to the work tree's
.gitattributes (other lines kept) and merge.` + merge.MergeDriverName + `.name/.driver
("` + merge.MergeDriverCommand + `") to the repository's config
(the common config of linked worktrees). uninstall removes exactly those.
--binary PATH makes the driver run the git-echoes binary at PATH instead of
finding it on PATH, for git clients started with another PATH; the path is
quoted for the shell git runs drivers with, and on Windows written with
forward slashes (C:/Program Files/...).
With git 2.44 or later, the labels can name the branches:
  driver = git echoes merge-driver --ours-label %X --theirs-label %Y \
           --base-label %S %O %A %B %P

Exit status: 0 merged cleanly (or installed), 1 conflict markers written,
2 usage or I/O error (OURS left unchanged).
`

func runMergeDriver(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("merge-driver", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	labels := merge.Labels{}
	fs.StringVar(&labels.Ours, "ours-label", "ours", "")
	fs.StringVar(&labels.Base, "base-label", "base", "")
	fs.StringVar(&labels.Theirs, "theirs-label", "theirs", "")
	fs.BoolVar(&labels.Diff3, "diff3", false, "")
	workspace := fs.String("workspace", "", "")
	binary := fs.String("binary", "", "")
	fail := func(msg string) int {
		fmt.Fprintf(stderr, "%sgit echoes merge-driver: error: %s\n", mergeDriverUsage, msg)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, mergeDriverUsage)
			return exitOK
		}
		return fail(err.Error())
	}
	pos := fs.Args()
	if len(pos) == 1 && (pos[0] == "install" || pos[0] == "uninstall") {
		if fs.Changed("binary") && pos[0] != "install" {
			return fail("--binary goes with install")
		}
		if fs.Changed("binary") && *binary == "" {
			return fail("--binary needs a path")
		}
		return installMergeDriver(pos[0], *workspace, *binary, stdout, stderr)
	}
	if fs.Changed("binary") {
		return fail("--binary goes with install")
	}
	if len(pos) != 3 && len(pos) != 4 {
		return fail("expected BASE OURS THEIRS [PATH], or install/uninstall")
	}
	name := pos[1]
	if len(pos) == 4 {
		name = pos[3]
	}
	var data [3][]byte
	for i, p := range pos[:3] {
		var err error
		if data[i], err = os.ReadFile(p); err != nil {
			fmt.Fprintf(stderr, "git echoes merge-driver: %s: %v\n", name, err)
			return exitError
		}
	}
	merged, clean, err := merge.MergePage(data[0], data[1], data[2], labels)
	if err != nil {
		fmt.Fprintf(stderr, "git echoes merge-driver: %s: %v\n", name, err)
		return exitError
	}
	if err := fsx.WriteFileAtomic(pos[1], merged); err != nil {
		fmt.Fprintf(stderr, "git echoes merge-driver: %s: %v\n", name, err)
		return exitError
	}
	if !clean {
		fmt.Fprintf(stderr, "git echoes merge-driver: conflict in %s: resolve the conflict markers, then git add it\n", name)
		return exitConflict
	}
	return exitOK
}

func installMergeDriver(action, workspace, binary string, stdout, stderr io.Writer) int {
	repo, err := openWorkspaceRepo(workspace)
	if err != nil {
		fmt.Fprintf(stderr, "git echoes merge-driver: error: %s\n", err)
		return exitError
	}
	if binary != "" {
		// The driver runs from the work-tree top; an absolute path works
		// from anywhere.
		if binary, err = filepath.Abs(binary); err != nil {
			fmt.Fprintf(stderr, "git echoes merge-driver: error: %s\n", err)
			return exitError
		}
	}
	var c merge.MergeDriverChange
	if action == "install" {
		c, err = merge.InstallMergeDriverBinary(repo, binary)
	} else {
		c, err = merge.UninstallMergeDriver(repo)
	}
	if c.AttributesAction != "" {
		fmt.Fprintf(stdout, ".gitattributes: %s  %s\n", c.AttributesAction, c.Attributes)
	}
	if c.ConfigAction != "" {
		fmt.Fprintf(stdout, "git config merge.%s: %s  %s\n", merge.MergeDriverName, c.ConfigAction, c.Config)
	}
	if err != nil {
		fmt.Fprintf(stderr, "git echoes merge-driver: error: %s\n", err)
		return exitError
	}
	return exitOK
}
