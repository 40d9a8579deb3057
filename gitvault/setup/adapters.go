package setup

import (
	"errors"
	"github.com/git-echoes/git-echoes/gitvault"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// adapterResult is the agentAdapters object (echoes-conformance §16.2).
type adapterResult struct {
	RuntimeUpdated, ProtocolUpdated               bool
	GuidesUpdated, SkillsUpdated, CommandsUpdated []string
	LegacySkillsRedirected, AdapterConflicts      []string
}

func (r adapterResult) JSON() pyjson.Value {
	return pyjson.ObjectValue(pyjson.NewObj().
		Set("protocolVersion", pyjson.Str(gitvault.ProtocolVersion)).
		Set("engineVersion", pyjson.Str(gitvault.EngineVersion)).
		Set("managedAdapterVersion", pyjson.Str(gitvault.ManagedAdapterVersion)).
		Set("codexAdapterVersion", pyjson.Str(gitvault.ManagedAdapterVersion)).
		Set("runtimeUpdated", pyjson.Boolean(r.RuntimeUpdated)).
		Set("protocolUpdated", pyjson.Boolean(r.ProtocolUpdated)).
		Set("guidesUpdated", pyjson.Strs(r.GuidesUpdated)).
		Set("skillsUpdated", pyjson.Strs(r.SkillsUpdated)).
		Set("commandsUpdated", pyjson.Strs(r.CommandsUpdated)).
		Set("legacySkillsRedirected", pyjson.Strs(r.LegacySkillsRedirected)).
		Set("adapterConflicts", pyjson.Strs(r.AdapterConflicts)))
}

// plannedWrite is one file an adapter plan replaces.
type plannedWrite struct {
	path string
	data []byte
}

// adapterPlan is the complete, validated set of adapter writes of one
// command. Unlike the reference, which validates each file just before
// writing it, every refusal (symlinks, malformed blocks, a user-owned
// AGENT_PROTOCOL.md, an unrecognised runtime) is found while planning, so a
// refused init or configure-agents leaves every file as it was.
type adapterPlan struct {
	ignore  []plannedWrite // the two ignore files (echoes-conformance §16.1)
	runtime runtimeAction
	writes  []plannedWrite // protocol, guides, skills, commands, legacy skills, in echoes-conformance §16.2 order
	result  adapterResult
}

// installAdapters plans and then writes the generated agent files (echoes-conformance §16.2).
// installRuntime is true for init/migrate/upgrade, which may install or
// replace the portable runtime; configure-agents only restores a missing one.
func installAdapters(w *gitvault.Writer, installRuntime bool) (adapterResult, error) {
	plan, err := planAdapters(w.Workspace(), installRuntime)
	if err != nil {
		return adapterResult{}, err
	}
	if err := writeIgnore(w, plan); err != nil {
		return adapterResult{}, err
	}
	return applyAdapters(w, plan)
}

// planAdapters reads and validates every adapter file without writing.
func planAdapters(ws *gitvault.Workspace, installRuntime bool) (*adapterPlan, error) {
	p := &adapterPlan{}
	for _, f := range []struct {
		path  string
		lines []string
	}{{ws.VaultIgnore, gitvault.VaultIgnoreLines}, {ws.RuntimeIgnore, gitvault.RuntimeIgnoreLines}} {
		data, changed, err := planLines(f.path, f.lines)
		if err != nil {
			return nil, err
		}
		if changed {
			p.ignore = append(p.ignore, plannedWrite{f.path, data})
		}
	}
	var err error
	if p.runtime, err = planRuntime(ws, installRuntime); err != nil {
		return nil, err
	}
	p.result.RuntimeUpdated = p.runtime != runtimeKeep

	if err := p.planProtocol(ws.Protocol); err != nil {
		return nil, err
	}
	for _, guide := range []string{ws.AgentsGuide, ws.ClaudeGuide} {
		data, changed, err := planGuide(guide)
		if err != nil {
			return nil, err
		}
		if changed {
			p.writes = append(p.writes, plannedWrite{guide, data})
			p.result.GuidesUpdated = append(p.result.GuidesUpdated, ws.Rel(guide))
		}
	}
	for _, skill := range []string{ws.ClaudeSkill, ws.OpenCodeSkill} {
		if err := p.planSkill(ws, skill); err != nil {
			return nil, err
		}
	}
	for _, c := range openCodeCommandTexts {
		if err := p.planCommand(ws, ws.CommandPath(c.name), c.text); err != nil {
			return nil, err
		}
	}
	for _, l := range legacyRedirects {
		p.planLegacySkill(ws, ws.LegacySkillPath(l.dir), l)
	}
	return p, nil
}

// readManaged reads an existing adapter file as text (echoes-conformance §2.3). A missing file
// reads as "" with exists false; a symlink is reported through isLink
// before anything is read, so callers can use their own refusal message.
func readManaged(path string) (text string, exists, isLink bool, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, false, nil
	}
	if err != nil {
		return "", true, false, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "", true, true, nil
	}
	data, err := fsx.ReadFile(path)
	if err != nil {
		return "", true, false, err
	}
	text, err = pytext.DecodeText(data)
	if err != nil {
		return "", true, false, errors.New("invalid UTF-8")
	}
	return text, true, false, nil
}

func detail(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return gitvault.OSDetail(err)
	}
	return err.Error()
}

// planProtocol handles EchoesVault/AGENT_PROTOCOL.md (echoes-conformance §16.2 step 3).
func (p *adapterPlan) planProtocol(path string) error {
	text, _, isLink, err := readManaged(path)
	switch {
	case isLink:
		return gitvault.Errorf("Refusing to replace a symbolic link: %s", path)
	case err != nil:
		return gitvault.Wrapf(err, "Cannot read managed file %s: %s", path, detail(err))
	case text == agentProtocolText:
		return nil
	case text != "" && !strings.Contains(text, gitvault.GeneratedMarker):
		return gitvault.Errorf("Refusing to overwrite non-EchoesVault file: %s. Move it or add the protocol manually.", path)
	}
	p.writes = append(p.writes, plannedWrite{path, []byte(agentProtocolText)})
	p.result.ProtocolUpdated = true
	return nil
}

// planGuide computes the new bytes of AGENTS.md or CLAUDE.md (echoes-conformance §16.2 step 4).
// Whether anything changes is decided on the text as the reference reads it
// (universal newlines), so a CRLF checkout of an up-to-date guide is left
// alone; when the block does change, the edit is made on the raw bytes, so
// the user's text around it keeps its exact bytes, line endings included.
func planGuide(path string) (data []byte, changed bool, err error) {
	text, _, isLink, err := readManaged(path)
	switch {
	case isLink:
		return nil, false, gitvault.Errorf("Refusing to update a symbolic-link agent guide: %s", path)
	case err != nil:
		return nil, false, gitvault.Wrapf(err, "Cannot read agent guide %s: %s", path, detail(err))
	}
	newText, err := withManagedBlock(text, path)
	if err != nil || newText == text {
		return nil, false, err
	}
	raw, err := fsx.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		raw, err = nil, nil
	}
	if err != nil {
		return nil, false, gitvault.Wrapf(err, "Cannot read agent guide %s: %s", path, detail(err))
	}
	newRaw, err := withManagedBlock(string(raw), path)
	if err != nil {
		return nil, false, err
	}
	return []byte(newRaw), true, nil
}

// withManagedBlock installs the managed block in a guide's text: it
// replaces the one existing block, or appends one after a blank line. More
// than one marker of a kind, unequal counts, or an end marker before the
// start marker (which the reference silently ignores, echoes-conformance §16.2 Quirk) make the
// block malformed: the user must repair it by hand.
func withManagedBlock(text, path string) (string, error) {
	starts, ends := strings.Count(text, gitvault.BlockStart), strings.Count(text, gitvault.BlockEnd)
	if starts != ends || starts > 1 {
		return "", gitvault.Errorf("Malformed EchoesVault managed block in %s.", path)
	}
	if starts == 1 {
		i, j := strings.Index(text, gitvault.BlockStart), strings.Index(text, gitvault.BlockEnd)
		if j < i+len(gitvault.BlockStart) {
			return "", gitvault.Errorf("Malformed EchoesVault managed block in %s.", path)
		}
		return text[:i] + managedBlock + text[j+len(gitvault.BlockEnd):], nil
	}
	if pytext.IsBlank(text) {
		return managedBlock + "\n", nil
	}
	return pytext.RStrip(text) + "\n\n" + managedBlock + "\n", nil
}

// planSkill handles the Claude and OpenCode skills (echoes-conformance §16.2 step 5). A skill
// the user wrote is kept and, as protocol §12.4 asks, reported as a conflict.
func (p *adapterPlan) planSkill(ws *gitvault.Workspace, path string) error {
	text, _, isLink, err := readManaged(path)
	switch {
	case isLink:
		return gitvault.Errorf("Refusing to replace a symbolic link: %s", path)
	case err != nil:
		return gitvault.Wrapf(err, "Cannot read managed file %s: %s", path, detail(err))
	case text == skillText:
		return nil
	case text != "" && !strings.Contains(text, gitvault.GeneratedMarker):
		// Any non-empty file (whitespace-only included) is the user's.
		p.result.AdapterConflicts = append(p.result.AdapterConflicts, ws.Rel(path))
		return nil
	}
	p.writes = append(p.writes, plannedWrite{path, []byte(skillText)})
	p.result.SkillsUpdated = append(p.result.SkillsUpdated, ws.Rel(path))
	return nil
}

// planCommand handles one OpenCode command (echoes-conformance §16.2 step 6). Generated and
// recognised pre-1.0 commands are replaced; anything else is the user's.
func (p *adapterPlan) planCommand(ws *gitvault.Workspace, path, want string) error {
	text, _, isLink, err := readManaged(path)
	switch {
	case isLink:
		return gitvault.Errorf("Refusing to replace a symbolic-link OpenCode command: %s", path)
	case err != nil:
		return gitvault.Wrapf(err, "Cannot read OpenCode command %s: %s", path, detail(err))
	case text == want:
		return nil
	case text != "" && !strings.Contains(text, gitvault.GeneratedMarker) && !containsAny(text, legacyCommandSignatures):
		p.result.AdapterConflicts = append(p.result.AdapterConflicts, ws.Rel(path))
		return nil
	}
	p.writes = append(p.writes, plannedWrite{path, []byte(want)})
	p.result.CommandsUpdated = append(p.result.CommandsUpdated, ws.Rel(path))
	return nil
}

// planLegacySkill redirects one pre-1.0 OpenCode skill that still exists
// (echoes-conformance §16.2 step 7, protocol §15). It never fails: anything it cannot
// recognise, read or safely replace is preserved and reported.
func (p *adapterPlan) planLegacySkill(ws *gitvault.Workspace, path string, l legacyRedirect) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return // absent, or a dangling symlink
	}
	conflict := func() { p.result.AdapterConflicts = append(p.result.AdapterConflicts, ws.Rel(path)) }
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fsx.IsSymlink(filepath.Dir(path)) {
		// A symlinked skill directory would make the write land outside
		// the tree the user sees as .opencode/skills.
		conflict()
		return
	}
	text, _, _, err := readManaged(path)
	if err != nil {
		conflict()
		return
	}
	owned := strings.Contains(text, gitvault.GeneratedMarker) && strings.Contains(text, gitvault.LegacyRedirectID)
	if !owned && !containsAny(text, l.signatures) {
		conflict()
		return
	}
	if text != l.text {
		p.writes = append(p.writes, plannedWrite{path, []byte(l.text)})
	}
	p.result.LegacySkillsRedirected = append(p.result.LegacySkillsRedirected, ws.Rel(path))
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// writeIgnore writes the planned ignore files.
func writeIgnore(w *gitvault.Writer, p *adapterPlan) error {
	for _, f := range p.ignore {
		if err := w.Write(f.path, f.data); err != nil {
			return err
		}
	}
	p.ignore = nil
	return nil
}

// applyAdapters writes the planned runtime and adapter files in echoes-conformance §16.2 order.
func applyAdapters(w *gitvault.Writer, p *adapterPlan) (adapterResult, error) {
	if err := writeIgnore(w, p); err != nil {
		return adapterResult{}, err
	}
	if p.runtime != runtimeKeep {
		if err := installLauncher(w); err != nil {
			return adapterResult{}, err
		}
	}
	for _, f := range p.writes {
		if err := w.Write(f.path, f.data); err != nil {
			return adapterResult{}, err
		}
	}
	return p.result, nil
}

// planLines computes an ignore file with the missing rules appended.
func planLines(path string, want []string) (data []byte, changed bool, err error) {
	if fsx.IsSymlink(path) {
		return nil, false, gitvault.Errorf("Refusing to update a symbolic-link ignore file: %s", path)
	}
	existing := ""
	raw, err := fsx.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, false, gitvault.Wrapf(err, "Cannot read ignore file %s: %s", path, gitvault.OSDetail(err))
	default:
		if existing, err = pytext.DecodeText(raw); err != nil {
			return nil, false, gitvault.Wrapf(err, "Cannot read ignore file %s: invalid UTF-8", path)
		}
	}
	present := map[string]bool{}
	for _, l := range pytext.SplitLines(existing) {
		present[l] = true
	}
	var missing []string
	for _, l := range want {
		if !present[l] {
			missing = append(missing, l)
		}
	}
	if len(missing) == 0 {
		return nil, false, nil
	}
	text := strings.Join(missing, "\n") + "\n"
	if !pytext.IsBlank(existing) {
		text = pytext.RStrip(existing) + "\n" + text
	}
	return []byte(text), true, nil
}
