package gitvault

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// GitReadiness is health.git (echoes-conformance §20): whether the durable
// vault files are versioned and the local-only ones are not.
type GitReadiness struct {
	// Available is false outside a Git work tree.
	Available bool
	Ready     bool

	TrackedLocalFiles       []string
	UntrackedDurableFiles   []string
	IgnoredDurableFiles     []string
	RuntimeIgnored          bool
	OpenCodeCommandsIgnored []string
	OpenCodeSkillsIgnored   []string
	SuggestedCommands       []string

	// Problem is set when the workspace is a Git work tree that cannot be
	// read faithfully (gitrepo.ErrUnsupported, a corrupt index, ...). The
	// reference would report such a repository as unavailable, which reads
	// as "ready"; we fail closed instead: Available stays true, Ready is
	// false and health.gitReadiness carries "repository unreadable: ...".
	Problem string
}

// LocalOnlyFiles are the workspace-relative files that must never be
// committed (echoes-conformance §20.2).
var LocalOnlyFiles = []string{"EchoesVault/index.md", ".echoes-vault/state.json", ".echoes-vault/lock",
	".opencode/echoes-state.json", ".codex/echoes-vault-state.json"}

// durableFixed are the durable candidates with a fixed path (echoes-conformance §20.2), before
// the per-file walk of the content directories.
func durableFixed() []string {
	out := []string{"EchoesVault/.echoes-vault.json", "EchoesVault/.gitignore", "EchoesVault/AGENT_PROTOCOL.md",
		".echoes-vault/.gitignore", ".echoes-vault/echoes_vault.py", "AGENTS.md", "CLAUDE.md",
		".claude/skills/echoes-vault/SKILL.md", ".opencode/skills/echoes-vault/SKILL.md"}
	for _, c := range OpenCodeCommands {
		out = append(out, ".opencode/commands/"+c)
	}
	for _, s := range LegacySkills {
		out = append(out, ".opencode/skills/"+s+"/SKILL.md")
	}
	return out
}

// DurableCandidates lists the durable files that exist as regular,
// non-symlink files, sorted, as slash paths relative to the workspace.
func (ws *Workspace) DurableCandidates() []string {
	var out []string
	for _, p := range durableFixed() {
		if fsx.IsRegular(filepath.Join(ws.Root, filepath.FromSlash(p))) {
			out = append(out, p)
		}
	}
	for _, dir := range []string{ws.Pages, ws.Daily, ws.Assets, ws.Raw} {
		// A symlinked content directory contributes nothing: Lstat it first,
		// because WalkDir would report the link itself and stop anyway, but
		// only after calling us with it.
		if !fsx.IsDirNoFollow(dir) {
			continue
		}
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			// Our own temporary files are leftovers of a failed write, never
			// durable knowledge: not reported, never suggested for git add
			// (issue 11 item 1).
			if d.Type().IsRegular() && !fsx.IsTempName(d.Name()) {
				out = append(out, filepath.ToSlash(ws.Rel(p)))
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

func unavailableReadiness() GitReadiness { return GitReadiness{Ready: true} }

// GitReadiness computes echoes-conformance §20 through internal/gitrepo: the index file and the
// exclude rules along the durable paths only, never a work-tree status, so
// the cost does not grow with the number of files outside the vault.
func (ws *Workspace) GitReadiness() GitReadiness {
	if !ws.InGit {
		return unavailableReadiness()
	}
	repo, err := gitrepo.Open(ws.Root)
	if err != nil {
		return unreadableReadiness(err)
	}
	g, err := ReadReadiness(repo, ws.DurableCandidates())
	if err != nil {
		return unreadableReadiness(err)
	}
	return g
}

func unreadableReadiness(err error) GitReadiness {
	return GitReadiness{Available: true, Problem: err.Error()}
}

func ReadReadiness(repo *gitrepo.Repo, durable []string) (GitReadiness, error) {
	g := GitReadiness{Available: true}
	tracked, err := repo.IndexPaths()
	if err != nil {
		return g, err
	}
	for _, p := range LocalOnlyFiles {
		if tracked[p] {
			g.TrackedLocalFiles = append(g.TrackedLocalFiles, p)
		}
	}
	sort.Strings(g.TrackedLocalFiles)
	var candidates []string
	for _, p := range durable {
		if !tracked[p] {
			candidates = append(candidates, p)
		}
		ign, err := repo.Ignored(p, false)
		if err != nil {
			return g, err
		}
		// A tracked file is versioned whatever the ignore rules say; keeping
		// it here would leave readiness false forever (echoes-conformance §20.3 Quirk).
		if ign && !tracked[p] {
			g.IgnoredDurableFiles = append(g.IgnoredDurableFiles, p)
		}
	}
	untracked, err := repo.Untracked(candidates)
	if err != nil {
		return g, err
	}
	g.UntrackedDurableFiles = untracked
	ignored := make(map[string]bool, len(g.IgnoredDurableFiles))
	for _, p := range g.IgnoredDurableFiles {
		ignored[p] = true
		switch {
		case strings.HasPrefix(p, ".opencode/commands/"):
			g.OpenCodeCommandsIgnored = append(g.OpenCodeCommandsIgnored, p)
		case strings.HasPrefix(p, ".opencode/skills/"):
			g.OpenCodeSkillsIgnored = append(g.OpenCodeSkillsIgnored, p)
		}
	}
	g.RuntimeIgnored = ignored[".echoes-vault/echoes_vault.py"]
	if len(g.TrackedLocalFiles) > 0 {
		g.SuggestedCommands = append(g.SuggestedCommands, "git rm --cached -- "+shellJoin(g.TrackedLocalFiles))
	}
	if len(g.IgnoredDurableFiles) > 0 {
		g.SuggestedCommands = append(g.SuggestedCommands, "git add -f -- "+shellJoin(g.IgnoredDurableFiles))
	}
	var add []string
	for _, p := range g.UntrackedDurableFiles {
		if !ignored[p] {
			add = append(add, p)
		}
	}
	if len(add) > 0 {
		g.SuggestedCommands = append(g.SuggestedCommands, "git add -- "+shellJoin(add))
	}
	g.Ready = len(g.TrackedLocalFiles) == 0 && len(g.UntrackedDurableFiles) == 0 && len(g.IgnoredDurableFiles) == 0
	return g, nil
}

// Issues are the health.gitReadiness entries (echoes-conformance §18.3).
func (g GitReadiness) Issues() []string {
	var out []string
	if g.Problem != "" {
		out = append(out, "repository unreadable: "+g.Problem)
	}
	for _, p := range g.TrackedLocalFiles {
		out = append(out, "tracked local file: "+p)
	}
	for _, p := range g.UntrackedDurableFiles {
		out = append(out, "untracked durable file: "+p)
	}
	for _, p := range g.IgnoredDurableFiles {
		out = append(out, "ignored durable file: "+p)
	}
	return out
}

// JSON renders health.git in the echoes-conformance §20.3 key order.
func (g GitReadiness) JSON() pyjson.Value {
	return pyjson.ObjectValue(pyjson.NewObj().
		Set("available", pyjson.Boolean(g.Available)).
		Set("ready", pyjson.Boolean(g.Ready)).
		Set("trackedLocalFiles", pyjson.Strs(g.TrackedLocalFiles)).
		Set("untrackedDurableFiles", pyjson.Strs(g.UntrackedDurableFiles)).
		Set("ignoredDurableFiles", pyjson.Strs(g.IgnoredDurableFiles)).
		Set("runtimeIgnored", pyjson.Boolean(g.RuntimeIgnored)).
		Set("openCodeCommandsIgnored", pyjson.Strs(g.OpenCodeCommandsIgnored)).
		Set("openCodeSkillsIgnored", pyjson.Strs(g.OpenCodeSkillsIgnored)).
		Set("suggestedCommands", pyjson.Strs(g.SuggestedCommands)))
}

// ShellQuote quotes p as Python's shlex.quote does (echoes-conformance §20.3): bare when made
// only of ASCII [A-Za-z0-9_@%+=:,./-], else single-quoted with each ' written
// as '"'"'.
func ShellQuote(p string) string {
	if p == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_@%+=:,./-", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'"'"'`) + "'"
}

func shellJoin(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = ShellQuote(p)
	}
	return strings.Join(q, " ")
}
