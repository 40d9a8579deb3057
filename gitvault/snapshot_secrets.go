package gitvault

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// The allowlist files of the gate's secret rule (gitvault/gate,
// secretscan.go): gitleaks teams keep them at the top of the workspace, and
// they are read from the same source as the vault (work tree, index or
// commit), since they are under review too.
const (
	GitleaksIgnoreFile = ".gitleaksignore"
	GitleaksConfigFile = ".gitleaks.toml"
)

// SecretConfig is what the snapshot's source holds of the repository's
// allowlist files (nil: absent).
type SecretConfig struct {
	Commit string // the commit of check --rev, for commit fingerprints
	Ignore []byte // .gitleaksignore
	TOML   []byte // .gitleaks.toml
}

// readWorkTree reads the allowlist files of the work tree,
// never through a symlink.
func (c *SecretConfig) readWorkTree(ws *Workspace) error {
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{GitleaksIgnoreFile, &c.Ignore}, {GitleaksConfigFile, &c.TOML}} {
		p := filepath.Join(ws.Root, f.name)
		if fsx.IsSymlink(p) {
			continue
		}
		data, err := fsx.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		*f.dst = data
	}
	return nil
}

// readEntries takes the allowlist files from index or tree entries.
func (c *SecretConfig) readEntries(list func(p string) ([]gitrepo.Entry, error)) error {
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{GitleaksIgnoreFile, &c.Ignore}, {GitleaksConfigFile, &c.TOML}} {
		entries, err := list(f.name)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.Path != f.name || e.Stage != 0 || e.IntentToAdd || !IsBlobMode(e.Mode) {
				continue
			}
			data, err := e.Read()
			if err != nil {
				return err
			}
			*f.dst = data
		}
	}
	return nil
}
