package gitvault

import (
	"os"
	"testing"
)

// testdata/launcher-previous.py is the launcher of the release before the
// Windows changes, byte for byte. A vault that still has it is healthy (it
// declares the same versions and the GIT_ECHOES_LAUNCHER line, so it is ours,
// not a foreign runtime), configure-agents leaves it alone, and upgrade
// replaces it with the current launcher.
func TestPreviousLauncherIsUpgraded(t *testing.T) {
	old, err := os.ReadFile("testdata/launcher-previous.py")
	if err != nil {
		t.Fatal(err)
	}
	if string(old) == launcherSource {
		t.Fatal("testdata/launcher-previous.py is the current launcher; keep the previous release's bytes there")
	}
	e := initVault(t)
	if err := os.WriteFile(e.WS.Runtime, old, 0o755); err != nil {
		t.Fatal(err)
	}
	if !isLauncher(string(old)) {
		t.Fatal("the previous launcher is not recognised as ours")
	}
	rs := e.WS.RuntimeStatus()
	if !rs.Recognized || !rs.Compatible || !rs.Current {
		t.Errorf("previous launcher status: %+v", rs)
	}
	h := e.Inspect().Health
	if len(h.OutdatedRuntime) != 0 || len(h.AdapterConfiguration) != 0 {
		t.Errorf("health flags the previous launcher: outdated %q, adapters %q", h.OutdatedRuntime, h.AdapterConfiguration)
	}
	for _, m := range h.MissingStructure {
		if m == ".echoes-vault/echoes_vault.py" {
			t.Error("health lists the previous launcher as missing structure")
		}
	}
	if action, err := e.WS.planRuntime(false); err != nil || action != runtimeKeep {
		t.Errorf("configure-agents plan: %v %v", action, err)
	}
	res, err := e.Install("upgrade")
	if err != nil {
		t.Fatal(err)
	}
	if v := getPath(t, res, "agentAdapters", "runtimeUpdated"); !v.B {
		t.Error("upgrade did not replace the previous launcher")
	}
	if got, _ := os.ReadFile(e.WS.Runtime); string(got) != launcherSource {
		t.Error("the runtime is not the current launcher after upgrade")
	}
}
