package gitvault

import "testing"

// The core's tests make their vaults without gitvault/setup (which imports
// this package): the directories, the marker, the index and the state, as
// init writes them (echoes-conformance §15.1), without the agent adapters,
// the launcher (a stand-in is written) and the ignore rules, which are
// set-up's and tested there.

func page(summary, status string) string {
	return "---\ntype: note\nstack: go\nstatus: " + status + "\nsummary: " + summary + "\n---\nBody.\n"
}

// initVault creates an initialized vault in a fresh directory outside Git.
func initVault(t testing.TB) *Engine {
	t.Helper()
	e, err := Open(Options{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := testInit(e); err != nil {
		t.Fatal(err)
	}
	return e
}

// testInit initializes e's vault through the core's locked writer.
func testInit(e *Engine) error {
	w, err := e.WS.Acquire()
	if err != nil {
		return err
	}
	defer w.Release()
	if err := w.Mkdirs(e.WS.Raw, e.WS.Pages, e.WS.Daily, e.WS.Assets); err != nil {
		return err
	}
	if _, err := w.WriteMarker(); err != nil {
		return err
	}
	// A stand-in for the project runtime, recognized and current (hydrate
	// requires one; setup installs the real launcher).
	stub := "ENGINE_VERSION = \"" + EngineVersion + "\"\nPROTOCOL_VERSION = \"" + ProtocolVersion + "\"\n"
	if err := w.Mkdirs(e.WS.RuntimeDir); err != nil {
		return err
	}
	if err := w.Write(e.WS.Runtime, []byte(stub)); err != nil {
		return err
	}
	idx, err := e.Render(nil)
	if err != nil {
		return err
	}
	if _, err := w.RefreshIndex(idx); err != nil {
		return err
	}
	st := e.WS.ReadState()
	st.Initialized = true
	_, err = e.FinishState(w, st, e.WS.StatsFromIndex(idx), nil)
	return err
}
