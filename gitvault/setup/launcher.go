package setup

import (
	_ "embed"
	"errors"
	"github.com/git-echoes/git-echoes/gitvault"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// launcherSource is git-echoes' portable runtime: a dependency-free Python 3
// script installed at .echoes-vault/echoes_vault.py that execs the
// git-echoes binary with its arguments and streams (design §portable-runtime).
// Its version lines declare engine 1.1.1, like the reference; see the
// script's docstring for why.
//
//go:embed launcher/echoes_vault.py
var launcherSource string

// launcherMarkerRe recognises git-echoes' launcher, of any release, by a whole
// line the reference engine's runtime never contains.
var launcherMarkerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^GIT_ECHOES_LAUNCHER = True$`) })

// isLauncher reports whether a runtime file's text is a git-echoes launcher.
func isLauncher(text string) bool { return launcherMarkerRe().MatchString(text) }

// runtimeAction is what the adapter plan does with the runtime file.
type runtimeAction int

const (
	runtimeKeep    runtimeAction = iota // leave the file as it is
	runtimeInstall                      // create it (it is missing)
	runtimeReplace                      // replace an older or edited git-echoes launcher
)

// planRuntime decides, without writing, what init/migrate/upgrade
// (installRuntime) or configure-agents (!installRuntime) do with
// .echoes-vault/echoes_vault.py. The refusals and their messages are the
// reference's (echoes-conformance §21.2); the difference is the policy for foreign runtimes: a
// recognised, compatible runtime that is not git-echoes' launcher (for
// instance the reference engine itself) is never overwritten or downgraded,
// because it is a conforming writer that adapters already run.
func planRuntime(ws *gitvault.Workspace, installRuntime bool) (runtimeAction, error) {
	path := ws.Runtime
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return runtimeInstall, nil
	case err != nil:
		return runtimeKeep, gitvault.Wrapf(err, "Cannot read portable runtime %s: %s", path, gitvault.OSDetail(err))
	case fi.Mode()&fs.ModeSymlink != 0:
		// Even a dangling link is refused: writing would follow or replace
		// a link the user created on purpose.
		return runtimeKeep, gitvault.Errorf("Refusing to replace a symbolic-link runtime: %s", path)
	}
	if !installRuntime {
		// protocol §12.4: runtime replacement belongs to explicit upgrade
		// or missing-runtime recovery, not to configure-agents.
		return runtimeKeep, nil
	}
	data, err := fsx.ReadFile(path)
	if err != nil {
		return runtimeKeep, gitvault.Wrapf(err, "Cannot read portable runtime %s: %s", path, gitvault.OSDetail(err))
	}
	text, err := pytext.DecodeText(data)
	if err != nil {
		return runtimeKeep, gitvault.Wrapf(err, "Cannot read portable runtime %s: invalid UTF-8", path)
	}
	engine := gitvault.ParseVersionLine(gitvault.EngineVersionRe(), text)
	if engine == nil {
		engine = gitvault.ParseVersionLine(gitvault.PluginVersionRe(), text)
	}
	protocol := gitvault.ParseVersionLine(gitvault.ProtocolVersionRe(), text)
	switch {
	case engine == nil:
		return runtimeKeep, gitvault.Errorf("Refusing to overwrite an unrecognized portable runtime: %s", path)
	case protocol == nil:
		return runtimeKeep, gitvault.Errorf("Refusing to overwrite a runtime with unknown protocol metadata: %s", path)
	case *protocol != gitvault.ProtocolTriple:
		return runtimeKeep, gitvault.Errorf("Refusing to replace runtime protocol %s with incompatible protocol (1, 0, 0).", versionTuple(protocol))
	}
	if !isLauncher(text) {
		return runtimeKeep, nil
	}
	if gitvault.CompareVersions(*engine, gitvault.EngineTriple) > 0 {
		// A launcher from a newer git-echoes: never downgrade it.
		return runtimeKeep, nil
	}
	if text == pytext.UniversalNewlines(launcherSource) {
		return runtimeKeep, nil
	}
	return runtimeReplace, nil
}

// versionTuple prints a version as Python prints a tuple: (1, 0, 0).
func versionTuple(v *[3]int) string {
	return "(" + strings.ReplaceAll(gitvault.VersionString(v), ".", ", ") + ")"
}

// installLauncher writes the launcher and makes it executable. A replaced
// file keeps its permission bits (fsx.WriteFileAtomic), and every read bit
// gains its execute bit so that `./.echoes-vault/echoes_vault.py` works and
// Git records mode 100755; the umask-derived read bits are respected.
func installLauncher(w *gitvault.Writer) error {
	path := w.Workspace().Runtime
	if err := w.Write(path, []byte(launcherSource)); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return gitvault.Wrapf(err, "Cannot make %s executable: %s", path, gitvault.OSDetail(err))
	}
	mode := fi.Mode().Perm()
	if exec := mode | (mode&0o444)>>2; exec != mode {
		if err := os.Chmod(path, exec); err != nil {
			return gitvault.Wrapf(err, "Cannot make %s executable: %s", path, gitvault.OSDetail(err))
		}
	}
	return nil
}
