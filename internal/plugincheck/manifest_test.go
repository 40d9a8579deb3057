package plugincheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/buildinfo"
)

// repoRoot is the repository's top level, from this package's directory.
const repoRoot = "../.."

// pluginDir is the plugin root both marketplaces point at.
var pluginDir = filepath.Join(repoRoot, "plugin")

// The skills both plugins ship (issue 23: start, end, status, the memory
// hand-off).
var wantSkills = []string{"echoes-end", "echoes-start", "echoes-status", "memory-handoff"}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func str(v any) string { s, _ := v.(string); return s }

// entry is the marketplace's plugin entry named git-echoes.
func entry(t *testing.T, market map[string]any, path string) map[string]any {
	t.Helper()
	plugins, _ := market["plugins"].([]any)
	var found map[string]any
	for _, p := range plugins {
		m, _ := p.(map[string]any)
		if str(m["name"]) == "git-echoes" {
			if found != nil {
				t.Fatalf("%s: two entries named git-echoes", path)
			}
			found = m
		}
	}
	if found == nil {
		t.Fatalf("%s: no plugin entry named git-echoes", path)
	}
	return found
}

// TestOneVersion: the manifests and the marketplace entry carry
// buildinfo.ReleaseVersion, the version scripts/release.sh stamps into the
// binary and the archive names (issue 23, "the same version everywhere").
func TestOneVersion(t *testing.T) {
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(buildinfo.ReleaseVersion) {
		t.Fatalf("ReleaseVersion %q is not X.Y.Z", buildinfo.ReleaseVersion)
	}
	claudeMarket := filepath.Join(repoRoot, ".claude-plugin", "marketplace.json")
	for path, got := range map[string]string{
		filepath.Join(pluginDir, ".claude-plugin", "plugin.json"): str(readJSON(t, filepath.Join(pluginDir, ".claude-plugin", "plugin.json"))["version"]),
		filepath.Join(pluginDir, ".codex-plugin", "plugin.json"):  str(readJSON(t, filepath.Join(pluginDir, ".codex-plugin", "plugin.json"))["version"]),
		claudeMarket: str(entry(t, readJSON(t, claudeMarket), claudeMarket)["version"]),
	} {
		if got != buildinfo.ReleaseVersion {
			t.Errorf("%s: version %q, internal/buildinfo.ReleaseVersion is %q", path, got, buildinfo.ReleaseVersion)
		}
	}
	// scripts/release/versions.py reads the constant with this pattern.
	src, err := os.ReadFile(filepath.Join(repoRoot, "internal", "buildinfo", "release.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^const ReleaseVersion = "` + regexp.QuoteMeta(buildinfo.ReleaseVersion) + `"$`).Match(src) {
		t.Error(`internal/buildinfo/release.go: scripts/release/versions.py needs the line const ReleaseVersion = "X.Y.Z"`)
	}
}

// TestMarketplacesReachThePlugin: both marketplaces name the plugin
// git-echoes and resolve its source to plugin/, where each agent finds its
// manifest under the same name.
func TestMarketplacesReachThePlugin(t *testing.T) {
	claudeMarket := filepath.Join(repoRoot, ".claude-plugin", "marketplace.json")
	cm := readJSON(t, claudeMarket)
	if str(cm["name"]) != "git-echoes" {
		t.Errorf("%s: marketplace name %q, README installs git-echoes@git-echoes", claudeMarket, str(cm["name"]))
	}
	if src := str(entry(t, cm, claudeMarket)["source"]); filepath.Clean(filepath.Join(repoRoot, src)) != filepath.Clean(pluginDir) {
		t.Errorf("%s: source %q is not ./plugin", claudeMarket, src)
	}
	codexMarket := filepath.Join(repoRoot, ".agents", "plugins", "marketplace.json")
	xm := readJSON(t, codexMarket)
	if str(xm["name"]) != "git-echoes" {
		t.Errorf("%s: marketplace name %q", codexMarket, str(xm["name"]))
	}
	xe := entry(t, xm, codexMarket)
	source, _ := xe["source"].(map[string]any)
	if str(source["source"]) != "local" || filepath.Clean(filepath.Join(repoRoot, str(source["path"]))) != filepath.Clean(pluginDir) {
		t.Errorf("%s: source %v is not the local ./plugin", codexMarket, xe["source"])
	}
	policy, _ := xe["policy"].(map[string]any)
	if str(policy["installation"]) != "AVAILABLE" || str(xe["category"]) == "" {
		t.Errorf("%s: entry needs policy.installation AVAILABLE and a category: %v", codexMarket, xe)
	}
	for _, m := range []string{".claude-plugin", ".codex-plugin"} {
		if name := str(readJSON(t, filepath.Join(pluginDir, m, "plugin.json"))["name"]); name != "git-echoes" {
			t.Errorf("plugin/%s/plugin.json: name %q", m, name)
		}
	}
}

// TestComponents: every path a manifest names exists inside the plugin,
// and the skills are the four of the issue, each with a name equal to its
// folder and a description (what the agents match requests against).
func TestComponents(t *testing.T) {
	for _, m := range []string{".claude-plugin", ".codex-plugin"} {
		man := readJSON(t, filepath.Join(pluginDir, m, "plugin.json"))
		for _, field := range []string{"skills", "hooks", "mcpServers"} {
			p := str(man[field])
			if !strings.HasPrefix(p, "./") {
				t.Errorf("plugin/%s/plugin.json: %s %q must be a ./ path inside the plugin", m, field, p)
				continue
			}
			if _, err := os.Stat(filepath.Join(pluginDir, p)); err != nil {
				t.Errorf("plugin/%s/plugin.json: %s: %v", m, field, err)
			}
		}
	}
	entries, err := os.ReadDir(filepath.Join(pluginDir, "skills"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
		data, err := os.ReadFile(filepath.Join(pluginDir, "skills", e.Name(), "SKILL.md"))
		if err != nil {
			t.Error(err)
			continue
		}
		s := string(data)
		head, _, ok := strings.Cut(strings.TrimPrefix(s, "---\n"), "\n---\n")
		if !strings.HasPrefix(s, "---\n") || !ok {
			t.Errorf("skills/%s/SKILL.md: no frontmatter", e.Name())
			continue
		}
		if !slices.Contains(strings.Split(head, "\n"), "name: "+e.Name()) {
			t.Errorf("skills/%s/SKILL.md: frontmatter name is not %s", e.Name(), e.Name())
		}
		if !regexp.MustCompile(`(?m)^description: \S`).MatchString(head) {
			t.Errorf("skills/%s/SKILL.md: no description", e.Name())
		}
		// Each skill says what to tell the user when the binary is missing.
		if !strings.Contains(s, "https://github.com/git-echoes/git-echoes#install") {
			t.Errorf("skills/%s/SKILL.md: no install hint", e.Name())
		}
	}
	if !slices.Equal(got, wantSkills) {
		t.Errorf("skills %v, want %v", got, wantSkills)
	}
}

// hookGroups returns the SessionStart groups of a hooks file.
func hookGroups(t *testing.T, path string) []map[string]any {
	t.Helper()
	hooks, _ := readJSON(t, path)["hooks"].(map[string]any)
	if len(hooks) != 1 {
		t.Fatalf("%s: want only SessionStart, got %v", path, hooks)
	}
	raw, _ := hooks["SessionStart"].([]any)
	var groups []map[string]any
	for _, g := range raw {
		m, _ := g.(map[string]any)
		groups = append(groups, m)
	}
	if len(groups) != 1 {
		t.Fatalf("%s: want one SessionStart group, got %d", path, len(groups))
	}
	return groups
}

// TestHookRegistration: the matchers and the 10 s timeout the reference
// plugin registers (echoes-conformance §22), one command through the
// launcher; Codex has no compact source.
func TestHookRegistration(t *testing.T) {
	for file, want := range map[string]struct{ matcher, command string }{
		"claude.json": {"startup|resume|clear|compact", `sh "${CLAUDE_PLUGIN_ROOT}/launch.sh" hook session-start`},
		"codex.json":  {"startup|resume|clear", `sh "${PLUGIN_ROOT}/launch.sh" hook session-start`},
	} {
		path := filepath.Join(pluginDir, "hooks", file)
		g := hookGroups(t, path)[0]
		if str(g["matcher"]) != want.matcher {
			t.Errorf("%s: matcher %q, want %q", path, str(g["matcher"]), want.matcher)
		}
		hs, _ := g["hooks"].([]any)
		if len(hs) != 1 {
			t.Fatalf("%s: want one hook, got %v", path, hs)
		}
		h, _ := hs[0].(map[string]any)
		if str(h["type"]) != "command" || str(h["command"]) != want.command || h["timeout"] != float64(10) {
			t.Errorf("%s: hook %v, want command %q with timeout 10", path, h, want.command)
		}
	}
}

// mcpServer returns the one server of an MCP file: its command, arguments
// and environment.
func mcpServer(t *testing.T, path string) (string, []string, map[string]string) {
	t.Helper()
	servers, _ := readJSON(t, path)["mcpServers"].(map[string]any)
	s, _ := servers["echoes"].(map[string]any)
	if len(servers) != 1 || s == nil {
		t.Fatalf("%s: want exactly the server echoes, got %v", path, servers)
	}
	var args []string
	raw, _ := s["args"].([]any)
	for _, a := range raw {
		args = append(args, str(a))
	}
	env := map[string]string{}
	rawEnv, _ := s["env"].(map[string]any)
	for k, v := range rawEnv {
		env[k] = str(v)
	}
	if _, ok := s["cwd"]; ok {
		// The server must start in the session's directory: git echoes mcp
		// finds the workspace there (README, MCP server).
		t.Errorf("%s: cwd set; the server would not find the project", path)
	}
	return str(s["command"]), args, env
}

// TestMCPRegistration: each plugin's server identifies its harness (the
// memory tools need ECC_MEMORY_HARNESS) and serves both vaults.
func TestMCPRegistration(t *testing.T) {
	for file, harness := range map[string]string{"claude.json": "claude", "codex.json": "codex"} {
		path := filepath.Join(pluginDir, "mcp", file)
		cmd, args, env := mcpServer(t, path)
		if env["ECC_MEMORY_HARNESS"] != harness || len(env) != 1 {
			t.Errorf("%s: env %v, want only ECC_MEMORY_HARNESS=%s", path, env, harness)
		}
		if cmd != "sh" || len(args) != 2 || !strings.HasSuffix(args[1], "mcp") {
			t.Errorf("%s: %s %v is not `sh <launcher> mcp` (both vaults: no --memory/--vault)", path, cmd, args)
		}
	}
}
