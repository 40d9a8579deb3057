package setup

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
	// Health does not flag it either: gitvault/health TestPreviousLauncherIsHealthy.
	if action, err := planRuntime(e.WS, false); err != nil || action != runtimeKeep {
		t.Errorf("configure-agents plan: %v %v", action, err)
	}
	res, err := Install(e, "upgrade")
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
