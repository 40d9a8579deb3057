package gitvault

import (
	"github.com/git-echoes/git-echoes/internal/jsonx"
)

// Install runs init, migrate or upgrade (§15.1): the same full installation
// boundary, differing only in the reported operation. Unlike the reference,
// the legacy summary migration is validated before the first write, so a
// vault that cannot migrate is left exactly as it was.
func (e *Engine) Install(operation string) (jsonx.Value, error) {
	w, err := e.WS.acquire()
	if err != nil {
		return jsonx.Value{}, err
	}
	defer w.release()
	agent, err := e.flagAgent()
	if err != nil {
		return jsonx.Value{}, err
	}
	existed := e.WS.ReadMarker().Valid()
	if m := e.WS.ReadMarker(); m.Err != nil {
		return jsonx.Value{}, m.Err
	}
	plan, err := e.planMigration()
	if err != nil {
		return jsonx.Value{}, err
	}
	if err := w.mkdirs(e.WS.Raw, e.WS.Pages, e.WS.Daily, e.WS.Assets); err != nil {
		return jsonx.Value{}, err
	}
	if err := w.ensureIgnoreFiles(); err != nil {
		return jsonx.Value{}, err
	}
	if _, err := w.writeMarker(); err != nil {
		return jsonx.Value{}, err
	}
	st := e.WS.ReadState()
	st.Initialized = true
	adapters, err := w.installAdapters(true)
	if err != nil {
		return jsonx.Value{}, err
	}
	refresh, idx, err := w.applyMigration(plan)
	if err != nil {
		return jsonx.Value{}, err
	}
	st, err = e.finishState(w, st, e.WS.statsFromIndex(idx), agent)
	if err != nil {
		return jsonx.Value{}, err
	}
	return jsonx.ObjectValue(jsonx.NewObj().Set("ok", jsonx.Boolean(true)).
		Set("operation", jsonx.Str(operation)).
		Set("created", jsonx.Boolean(!existed)).
		Set("vault", jsonx.Str(e.WS.Vault)).
		Set("index", jsonx.Str(e.WS.Index)).
		Set("indexRefresh", refresh.JSON()).
		Set("agentAdapters", adapters.JSON()).
		Set("state", st.JSON())), nil
}

// ConfigureAgents repairs the generated adapters of an initialized vault
// without authoring knowledge (§15.3).
func (e *Engine) ConfigureAgents() (jsonx.Value, error) {
	return e.lockedMutation(func(w *writer) (jsonx.Value, error) {
		agent, err := e.flagAgent()
		if err != nil {
			return jsonx.Value{}, err
		}
		// Validate the index before touching anything: it fails on any
		// invalid page, and then nothing should have changed.
		idx, err := e.render(nil)
		if err != nil {
			return jsonx.Value{}, err
		}
		if err := w.mkdirs(e.WS.Raw, e.WS.Pages, e.WS.Daily, e.WS.Assets); err != nil {
			return jsonx.Value{}, err
		}
		if err := w.ensureIgnoreFiles(); err != nil {
			return jsonx.Value{}, err
		}
		if _, err := w.writeMarker(); err != nil {
			return jsonx.Value{}, err
		}
		adapters, err := w.installAdapters(false)
		if err != nil {
			return jsonx.Value{}, err
		}
		if _, err := w.refreshIndex(idx); err != nil {
			return jsonx.Value{}, err
		}
		if _, err := e.finishState(w, e.WS.ReadState(), e.WS.statsFromIndex(idx), agent); err != nil {
			return jsonx.Value{}, err
		}
		out := jsonx.NewObj().Set("ok", jsonx.Boolean(true))
		res := adapters.JSON()
		for _, k := range res.Obj.Keys() {
			v, _ := res.Obj.Get(k)
			out.Set(k, v)
		}
		return jsonx.ObjectValue(out), nil
	})
}
