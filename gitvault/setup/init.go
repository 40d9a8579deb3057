package setup

import (
	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// Install runs init, migrate or upgrade (echoes-conformance §15.1): the same full installation
// boundary, differing only in the reported operation. Unlike the reference,
// the legacy summary migration is validated before the first write, so a
// vault that cannot migrate is left exactly as it was.
func Install(e *gitvault.Engine, operation string) (pyjson.Value, error) {
	// --agent needs no vault: refuse it before the lock is taken, so not even
	// the lock's directory is created (issue 11 item 8).
	agent, err := e.FlagAgent()
	if err != nil {
		return pyjson.Value{}, err
	}
	w, err := e.WS.Acquire()
	if err != nil {
		return pyjson.Value{}, err
	}
	defer w.Release()
	m := e.WS.ReadMarker()
	existed := m.Valid()
	if err := writable(m); err != nil {
		return pyjson.Value{}, err
	}
	plan, err := e.PlanMigration()
	if err != nil {
		return pyjson.Value{}, err
	}
	// Every adapter refusal (symlinks, malformed blocks, a foreign runtime
	// or protocol guide) is found before the first write.
	adapterPlan, err := planAdapters(e.WS, true)
	if err != nil {
		return pyjson.Value{}, err
	}
	if err := checkReplaceTargets(e.WS, plan.Index); err != nil {
		return pyjson.Value{}, err
	}
	if err := w.Mkdirs(e.WS.Raw, e.WS.Pages, e.WS.Daily, e.WS.Assets); err != nil {
		return pyjson.Value{}, err
	}
	if err := writeIgnore(w, adapterPlan); err != nil {
		return pyjson.Value{}, err
	}
	if _, err := w.WriteMarker(); err != nil {
		return pyjson.Value{}, err
	}
	// Read after the plan and before the first state write: legacy state
	// files are imported here (echoes-conformance §14.2).
	st := e.WS.ReadState()
	st.Initialized = true
	adapters, err := applyAdapters(w, adapterPlan)
	if err != nil {
		return pyjson.Value{}, err
	}
	refresh, idx, err := w.ApplyMigration(plan)
	if err != nil {
		return pyjson.Value{}, err
	}
	st, err = e.FinishState(w, st, e.WS.StatsFromIndex(idx), agent)
	if err != nil {
		return pyjson.Value{}, err
	}
	return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
		Set("operation", pyjson.Str(operation)).
		Set("created", pyjson.Boolean(!existed)).
		Set("vault", pyjson.Str(e.WS.Vault)).
		Set("index", pyjson.Str(e.WS.Index)).
		Set("indexRefresh", refresh.JSON()).
		Set("agentAdapters", adapters.JSON()).
		Set("state", st.JSON())), nil
}

// ConfigureAgents repairs the generated adapters of an initialized vault
// without authoring knowledge (echoes-conformance §15.3).
func ConfigureAgents(e *gitvault.Engine) (pyjson.Value, error) {
	return e.LockedMutation(func(w *gitvault.Writer) (pyjson.Value, error) {
		agent, err := e.FlagAgent()
		if err != nil {
			return pyjson.Value{}, err
		}
		// Validate the index before touching anything: it fails on any
		// invalid page, and then nothing should have changed.
		idx, err := e.Render(nil)
		if err != nil {
			return pyjson.Value{}, err
		}
		adapterPlan, err := planAdapters(e.WS, false)
		if err != nil {
			return pyjson.Value{}, err
		}
		if err := checkReplaceTargets(e.WS, idx); err != nil {
			return pyjson.Value{}, err
		}
		if err := w.Mkdirs(e.WS.Raw, e.WS.Pages, e.WS.Daily, e.WS.Assets); err != nil {
			return pyjson.Value{}, err
		}
		if err := writeIgnore(w, adapterPlan); err != nil {
			return pyjson.Value{}, err
		}
		if _, err := w.WriteMarker(); err != nil {
			return pyjson.Value{}, err
		}
		adapters, err := applyAdapters(w, adapterPlan)
		if err != nil {
			return pyjson.Value{}, err
		}
		if _, err := w.RefreshIndex(idx); err != nil {
			return pyjson.Value{}, err
		}
		if _, err := e.FinishState(w, e.WS.ReadState(), e.WS.StatsFromIndex(idx), agent); err != nil {
			return pyjson.Value{}, err
		}
		out := pyjson.NewObj().Set("ok", pyjson.Boolean(true))
		res := adapters.JSON()
		for _, k := range res.Obj.Keys() {
			v, _ := res.Obj.Get(k)
			out.Set(k, v)
		}
		return pyjson.ObjectValue(out), nil
	})
}

// writable fails, before anything is written, where writeMarker would
// (echoes-conformance §7.4): an unreadable marker or one of another protocol version.
func writable(m gitvault.MarkerRead) error {
	if m.Err != nil {
		return m.Err
	}
	if !m.Exists {
		return nil
	}
	if pv := m.ProtocolValue(); pv.Kind != pyjson.Null && !pyjson.Equal(pv, pyjson.Str(gitvault.ProtocolVersion)) {
		return gitvault.Errorf("Unsupported EchoesVault protocol %s; this runtime supports 1.0.0. Upgrade the agent adapter before writing.", pyjson.Repr(pv))
	}
	return nil
}

// checkReplaceTargets refuses, before the first write, the symlinked
// marker, index or state that the command would otherwise only meet after
// installing the adapters.
func checkReplaceTargets(ws *gitvault.Workspace, idx *gitvault.Index) error {
	targets := []string{ws.State}
	if ws.CurrentIndexText() != idx.Text {
		targets = append(targets, ws.Index)
	}
	if m := ws.ReadMarker(); !m.Exists || !pyjson.Equal(m.Value, gitvault.CanonicalMarker) {
		targets = append(targets, ws.Marker)
	}
	for _, t := range targets {
		if fsx.IsSymlink(t) {
			return gitvault.Errorf("Refusing to replace a symbolic link: %s", t)
		}
	}
	return nil
}
