package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/hooks"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

func init() { registerCommand("hooks", runGitHooks) }

const gitHooksUsage = `usage: git echoes hooks install|uninstall|status [--force] [--workspace PATH]

Git hooks for EchoesVault repositories:
  pre-commit   runs "git echoes check --staged"; a failing check blocks the
               commit, and so does a missing git-echoes on PATH (fail closed)
  pre-merge-commit
               the same check for merge commits git creates by itself (a
               clean merge can still make two page names collide)
  post-merge   runs "git echoes hydrate" to refresh the ignored index; never
               fails the merge, silent when the repository has no vault

Hooks are written to core.hooksPath when set (relative to the work-tree top),
otherwise to the hooks directory shared by all linked worktrees. Existing
shell hooks keep their lines: git-echoes owns only a block between marker
comments, and uninstall removes just that block (the file too when nothing
else is left). A hook that is not a shell script, a symbolic link or not
executable is never changed unless --force, which moves it to
<hook>.git-echoes-saved and runs it from the managed hook; uninstall moves
it back.

Exit status: 0 done, 1 refused (foreign hook), 2 usage or repository error.
`

func runGitHooks(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("hooks", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	force := fs.Bool("force", false, "")
	workspace := fs.String("workspace", "", "")
	fail := func(msg string) int {
		fmt.Fprintf(stderr, "%sgit echoes hooks: error: %s\n", gitHooksUsage, msg)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, gitHooksUsage)
			return exitOK
		}
		return fail(err.Error())
	}
	if fs.NArg() != 1 {
		return fail("expected one action: install, uninstall or status")
	}
	action := fs.Arg(0)
	if action != "install" && action != "uninstall" && action != "status" {
		return fail("unknown action " + fmt.Sprintf("%q", action))
	}
	repo, err := openWorkspaceRepo(*workspace)
	if err != nil {
		fmt.Fprintf(stderr, "git echoes hooks: error: %s\n", err)
		return exitError
	}
	var sts []hooks.HookStatus
	switch action {
	case "status":
		sts, err = hooks.GitHookStatus(repo)
	case "install":
		sts, err = hooks.InstallGitHooks(repo, *force)
	case "uninstall":
		sts, err = hooks.UninstallGitHooks(repo)
	}
	for _, st := range sts {
		line := st.Name + ": " + string(st.State)
		if st.Detail != "" {
			line += " (" + st.Detail + ")"
		}
		fmt.Fprintf(stdout, "%s  %s\n", line, st.Path)
	}
	if err != nil {
		fmt.Fprintf(stderr, "git echoes hooks: %s\n", err)
		return exitStatus(err)
	}
	return exitOK
}

// openWorkspaceRepo resolves --workspace as every command does and opens
// its Git repository; hooks and merge drivers only make sense inside one.
func openWorkspaceRepo(workspace string) (*gitrepo.Repo, error) {
	ws, err := gitvault.ResolveWorkspace(workspace)
	if err != nil {
		return nil, err
	}
	if !ws.InGit {
		return nil, fmt.Errorf("not inside a Git work tree: %s", ws.Root)
	}
	repo, err := gitrepo.Open(ws.Root)
	if err != nil {
		return nil, fmt.Errorf("cannot read the Git repository: %s", strings.TrimSpace(err.Error()))
	}
	return repo, nil
}
