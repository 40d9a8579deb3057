package gitvault

import (
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Stats are the live vault counts recorded in state and reported by health.
type Stats struct{ TotalPages, TotalDailyLogs, DeprecatedPages int }

// State is .echoes-vault/state.json (echoes-conformance §14). It is local,
// ignored by Git and never authoritative.
type State struct {
	Initialized bool
	// Session values are copied from disk whatever their JSON type.
	Started, Saved, LastStart, LastSave pyjson.Value
	Stats                               Stats
	WriterAgent, WriterAdapter          *string
}

func defaultState() *State {
	return &State{Started: pyjson.Boolean(false), Saved: pyjson.Boolean(false), LastStart: pyjson.NullValue(), LastSave: pyjson.NullValue()}
}

type stateSource struct {
	path, legacyAgent string
}

// ReadState reads the state with legacy import in the documented priority
// (echoes-conformance §14.2). It never fails: unusable sources fall through to the defaults.
func (ws *Workspace) ReadState() *State {
	sources := []stateSource{{ws.State, ""}, {ws.LegacyOpenCodeState, "opencode"}, {ws.LegacyCodexState, "codex"}}
	for _, src := range sources {
		data, err := fsx.ReadFile(src.path)
		if err != nil {
			continue
		}
		text, err := pytext.DecodeText(data)
		if err != nil {
			continue
		}
		raw, err := pyjson.Decode(text)
		if err != nil {
			continue
		}
		return stateFromRaw(raw, src.legacyAgent)
	}
	return defaultState()
}

func stateFromRaw(raw pyjson.Value, legacyAgent string) *State {
	st := defaultState()
	if raw.Kind != pyjson.Object {
		return st
	}
	get := func(o *pyjson.Obj, k string) (pyjson.Value, bool) { return o.Get(k) }
	if v, ok := get(raw.Obj, "initialized"); ok {
		st.Initialized = pyjson.Truthy(v)
	}
	if sess, ok := get(raw.Obj, "session"); ok && sess.Kind == pyjson.Object {
		for key, dst := range map[string]*pyjson.Value{"started": &st.Started, "saved": &st.Saved, "lastStart": &st.LastStart, "lastSave": &st.LastSave} {
			if v, ok := sess.Obj.Get(key); ok {
				*dst = v
			}
		}
	}
	if lw, ok := get(raw.Obj, "lastWriter"); ok && lw.Kind == pyjson.Object {
		st.WriterAgent = nonEmptyString(lw.Obj, "agent")
		st.WriterAdapter = nonEmptyString(lw.Obj, "adapterVersion")
	} else if legacyAgent != "" {
		agent := legacyAgent
		st.WriterAgent = &agent
		if pv, ok := raw.Obj.Get("pluginVersion"); ok && pv.Kind == pyjson.String {
			s := pv.S
			st.WriterAdapter = &s
		}
	}
	return st
}

func nonEmptyString(o *pyjson.Obj, key string) *string {
	if v, ok := o.Get(key); ok && v.Kind == pyjson.String && v.S != "" {
		s := v.S
		return &s
	}
	return nil
}

func optString(s *string) pyjson.Value {
	if s == nil {
		return pyjson.NullValue()
	}
	return pyjson.Str(*s)
}

// JSON renders the state in the schema-4 shape and key order.
func (st *State) JSON() pyjson.Value {
	session := pyjson.NewObj().Set("started", st.Started).Set("saved", st.Saved).
		Set("lastStart", st.LastStart).Set("lastSave", st.LastSave)
	stats := pyjson.NewObj().Set("totalPages", pyjson.Int(int64(st.Stats.TotalPages))).
		Set("totalDailyLogs", pyjson.Int(int64(st.Stats.TotalDailyLogs))).
		Set("deprecatedPages", pyjson.Int(int64(st.Stats.DeprecatedPages)))
	writer := pyjson.NewObj().Set("agent", optString(st.WriterAgent)).Set("adapterVersion", optString(st.WriterAdapter))
	return pyjson.ObjectValue(pyjson.NewObj().
		Set("version", pyjson.Int(stateSchemaVersion)).
		Set("protocolVersion", pyjson.Str(ProtocolVersion)).
		Set("engineVersion", pyjson.Str(EngineVersion)).
		Set("initialized", pyjson.Boolean(st.Initialized)).
		Set("session", pyjson.ObjectValue(session)).
		Set("stats", pyjson.ObjectValue(stats)).
		Set("lastWriter", pyjson.ObjectValue(writer)))
}

// setWriter records the writing agent (already normalized) and adapter version.
func (st *State) setWriter(agent *string, adapterVersion *string) {
	if agent == nil {
		return
	}
	a := *agent
	st.WriterAgent = &a
	st.WriterAdapter = nil
	if adapterVersion != nil && !pytext.IsBlank(*adapterVersion) {
		v := *adapterVersion
		st.WriterAdapter = &v
	}
}

// CountDailyLogs counts regular non-symlink *.md files below daily/.
func (ws *Workspace) CountDailyLogs() int {
	n := 0
	WalkDaily(ws.Daily, func(string) bool { n++; return true })
	return n
}

// StatsFromIndex derives the live counts from a successful render.
func (ws *Workspace) StatsFromIndex(idx *Index) Stats {
	st := Stats{TotalPages: len(idx.Pages), TotalDailyLogs: ws.CountDailyLogs()}
	for _, p := range idx.Pages {
		if p.Page.Deprecated() {
			st.DeprecatedPages++
		}
	}
	return st
}

// writeState writes the state unless the file already holds these exact
// bytes: rewriting identical bytes only costs an fsync, which dominates
// repeated hydrate and rebuild-index runs.
func (w *Writer) writeState(st *State) error {
	data := []byte(pyjson.Pretty(st.JSON()))
	if current, err := fsx.ReadFile(w.ws.State); err == nil && !fsx.IsSymlink(w.ws.State) && string(current) == string(data) {
		return nil
	}
	return w.Write(w.ws.State, data)
}
