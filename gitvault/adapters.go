package gitvault

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/git-echoes/git-echoes/internal/jsonx"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// AdapterResult is the agentAdapters object (§16.2).
type AdapterResult struct {
	RuntimeUpdated, ProtocolUpdated               bool
	GuidesUpdated, SkillsUpdated, CommandsUpdated []string
	LegacySkillsRedirected, AdapterConflicts      []string
}

func (r AdapterResult) JSON() jsonx.Value {
	return jsonx.ObjectValue(jsonx.NewObj().
		Set("protocolVersion", jsonx.Str(ProtocolVersion)).
		Set("engineVersion", jsonx.Str(EngineVersion)).
		Set("managedAdapterVersion", jsonx.Str(ManagedAdapterVersion)).
		Set("codexAdapterVersion", jsonx.Str(ManagedAdapterVersion)).
		Set("runtimeUpdated", jsonx.Boolean(r.RuntimeUpdated)).
		Set("protocolUpdated", jsonx.Boolean(r.ProtocolUpdated)).
		Set("guidesUpdated", jsonx.Strs(r.GuidesUpdated)).
		Set("skillsUpdated", jsonx.Strs(r.SkillsUpdated)).
		Set("commandsUpdated", jsonx.Strs(r.CommandsUpdated)).
		Set("legacySkillsRedirected", jsonx.Strs(r.LegacySkillsRedirected)).
		Set("adapterConflicts", jsonx.Strs(r.AdapterConflicts)))
}

// installAdapters writes the generated agent files (§16.2). installRuntime
// is true for init/migrate/upgrade, which may install or replace the
// portable runtime.
func (w *writer) installAdapters(installRuntime bool) (AdapterResult, error) {
	var res AdapterResult
	if err := w.ensureIgnoreFiles(); err != nil {
		return res, err
	}
	return res, nil
}

// ensureIgnoreFiles adds the missing scoped ignore rules (§16.1).
func (w *writer) ensureIgnoreFiles() error {
	if err := w.ensureLines(w.ws.VaultIgnore, VaultIgnoreLines); err != nil {
		return err
	}
	return w.ensureLines(w.ws.RuntimeIgnore, RuntimeIgnoreLines)
}

func (w *writer) ensureLines(path string, want []string) error {
	if isSymlink(path) {
		return errorf("Refusing to update a symbolic-link ignore file: %s", path)
	}
	existing := ""
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return wrapf(err, "Cannot read ignore file %s: %s", path, osDetail(err))
	default:
		if existing, err = pytext.DecodeText(data); err != nil {
			return wrapf(err, "Cannot read ignore file %s: invalid UTF-8", path)
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
		return nil
	}
	text := strings.Join(missing, "\n") + "\n"
	if !pytext.IsBlank(existing) {
		text = pytext.RStrip(existing) + "\n" + text
	}
	return w.write(path, []byte(text))
}
