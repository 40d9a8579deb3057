package health

import (
	"os"
	"testing"
)

// TestPreviousLauncherIsHealthy: the launcher of the release before the
// current one (gitvault/setup's testdata, where the upgrade is tested) is
// neither outdated nor missing for inspect.
func TestPreviousLauncherIsHealthy(t *testing.T) {
	old, err := os.ReadFile("../setup/testdata/launcher-previous.py")
	if err != nil {
		t.Fatal(err)
	}
	e := initVault(t)
	if err := os.WriteFile(e.WS.Runtime, old, 0o755); err != nil {
		t.Fatal(err)
	}
	h := Inspect(e).Health
	if len(h.OutdatedRuntime) != 0 || len(h.AdapterConfiguration) != 0 {
		t.Errorf("health flags the previous launcher: outdated %q, adapters %q", h.OutdatedRuntime, h.AdapterConfiguration)
	}
	for _, m := range h.MissingStructure {
		if m == ".echoes-vault/echoes_vault.py" {
			t.Error("health lists the previous launcher as missing structure")
		}
	}
}
