package gitvault

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// Workspace holds the resolved project root and the absolute paths of every
// managed file (echoes-conformance §1, echoes-conformance §3).
type Workspace struct {
	Root  string // realpath of the Git top level, or of the given directory
	InGit bool   // Root is the top level of a Git work tree

	Vault, Pages, Daily, Assets, Raw         string
	Index, Marker, Protocol, VaultIgnore     string
	RuntimeDir, Runtime, State, Lock         string
	RuntimeIgnore                            string
	LegacyOpenCodeState, LegacyCodexState    string
	AgentsGuide, ClaudeGuide                 string
	ClaudeSkill, OpenCodeSkill, OpenCodeCmds string
}

// OpenCodeCommands are the four generated OpenCode commands, in order.
var OpenCodeCommands = []string{"echoes-init.md", "echoes-start.md", "echoes-status.md", "echoes-end.md"}

// LegacySkills are the recognised legacy OpenCode skill directories, in order.
var LegacySkills = []string{"echoes-append-to-daily-log", "echoes-search-vault-pages", "echoes-create-or-update-page"}

// ResolveWorkspace resolves dir (empty: the current directory) to the
// workspace (echoes-conformance §3 steps 1-2) and checks confinement of every managed path
// (step 3). It reads nothing but directory metadata and the Git layout.
func ResolveWorkspace(dir string) (*Workspace, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, Wrapf(err, "Workspace is not a directory: %s", dir)
		}
		dir = wd
	}
	ws, err := LocateWorkspace(expandUser(dir))
	if err != nil {
		return nil, err
	}
	if err := ws.checkConfinement(); err != nil {
		return nil, err
	}
	return ws, nil
}

// LocateWorkspace is ResolveWorkspace without the confinement check
// (echoes-conformance §3 steps 1-2 only) and without "~" expansion: dir, relative to the current
// directory, resolves to the realpath of its Git top level, or of dir
// itself outside Git. The SessionStart hook uses it because a vault whose
// managed paths escape the workspace must still get a card ("Status
// unavailable") rather than silence.
func LocateWorkspace(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, Wrapf(err, "Workspace is not a directory: %s", dir)
	}
	real, err := fsx.ResolvePath(abs)
	if err != nil {
		real = abs
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return nil, Errorf("Workspace is not a directory: %s", real)
	}
	root, inGit := real, false
	if top, ok, err := gitrepo.Discover(real); err == nil && ok {
		root, inGit = top, true
		// Confinement compares fsx.ResolvePath results on both sides, so
		// the top level is resolved by the same function as the managed
		// paths. It is already real on POSIX systems (a no-op there); on
		// Windows filepath.EvalSymlinks, which gitrepo uses, does not
		// follow junctions while ResolvePath does, and a workspace under
		// a junction would otherwise be refused as an escape.
		if r, err := fsx.ResolvePath(top); err == nil {
			root = r
		}
	}
	ws := newWorkspace(root)
	ws.InGit = inGit
	return ws, nil
}

func expandUser(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

func newWorkspace(root string) *Workspace {
	j := func(parts ...string) string { return filepath.Join(append([]string{root}, parts...)...) }
	vault := j("EchoesVault")
	rt := j(".echoes-vault")
	return &Workspace{
		Root:                root,
		Vault:               vault,
		Pages:               filepath.Join(vault, "pages"),
		Daily:               filepath.Join(vault, "daily"),
		Assets:              filepath.Join(vault, "assets"),
		Raw:                 filepath.Join(vault, "raw"),
		Index:               filepath.Join(vault, "index.md"),
		Marker:              filepath.Join(vault, ".echoes-vault.json"),
		Protocol:            filepath.Join(vault, "AGENT_PROTOCOL.md"),
		VaultIgnore:         filepath.Join(vault, ".gitignore"),
		RuntimeDir:          rt,
		Runtime:             filepath.Join(rt, "echoes_vault.py"),
		State:               filepath.Join(rt, "state.json"),
		Lock:                filepath.Join(rt, "lock"),
		RuntimeIgnore:       filepath.Join(rt, ".gitignore"),
		LegacyOpenCodeState: j(".opencode", "echoes-state.json"),
		LegacyCodexState:    j(".codex", "echoes-vault-state.json"),
		AgentsGuide:         j("AGENTS.md"),
		ClaudeGuide:         j("CLAUDE.md"),
		ClaudeSkill:         j(".claude", "skills", "echoes-vault", "SKILL.md"),
		OpenCodeSkill:       j(".opencode", "skills", "echoes-vault", "SKILL.md"),
		OpenCodeCmds:        j(".opencode", "commands"),
	}
}

// managedPaths are the paths confined to the workspace (echoes-conformance §3 step 3).
func (ws *Workspace) managedPaths() []string {
	return []string{ws.Vault, ws.Raw, ws.Pages, ws.Daily, ws.Assets, ws.Index, ws.Marker, ws.Protocol,
		ws.VaultIgnore, ws.State, ws.LegacyOpenCodeState, ws.LegacyCodexState, ws.Lock, ws.RuntimeDir,
		ws.Runtime, ws.RuntimeIgnore, ws.AgentsGuide, ws.ClaudeGuide, ws.ClaudeSkill, ws.OpenCodeSkill,
		ws.OpenCodeCmds}
}

func (ws *Workspace) checkConfinement() error {
	for _, p := range ws.managedPaths() {
		if err := ws.confined(p); err != nil {
			return err
		}
	}
	return nil
}

// confined fails when p, with existing symlinks resolved, leaves the workspace.
func (ws *Workspace) confined(p string) error {
	resolved, err := fsx.ResolvePath(p)
	if err != nil || !fsx.Within(ws.Root, resolved) {
		return Errorf("Managed path escapes the workspace through a symlink: %s", p)
	}
	return nil
}

// Rel returns p relative to the workspace with OS separators.
func (ws *Workspace) Rel(p string) string {
	r, err := filepath.Rel(ws.Root, p)
	if err != nil {
		return p
	}
	return r
}

// CommandPath returns the absolute path of one OpenCode command file.
func (ws *Workspace) CommandPath(name string) string { return filepath.Join(ws.OpenCodeCmds, name) }

// LegacySkillPath returns the SKILL.md path of a legacy OpenCode skill.
func (ws *Workspace) LegacySkillPath(name string) string {
	return filepath.Join(ws.Root, ".opencode", "skills", name, "SKILL.md")
}
