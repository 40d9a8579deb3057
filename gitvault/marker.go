package gitvault

import (
	"errors"
	"io/fs"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// CanonicalMarker is the parsed canonical marker, for Python-equality checks.
var CanonicalMarker = mustDecode(canonicalMarkerText)

func mustDecode(s string) pyjson.Value {
	v, err := pyjson.Decode(s)
	if err != nil {
		panic(err)
	}
	return v
}

// MarkerRead is the outcome of reading EchoesVault/.echoes-vault.json.
type MarkerRead struct {
	Exists bool
	Value  pyjson.Value // valid only when Err == nil and Exists
	Err    *Error       // "Invalid EchoesVault marker: ..." when unreadable or not an object
}

// ReadMarker reads the marker without interpreting its fields (echoes-conformance §7.2).
func (ws *Workspace) ReadMarker() MarkerRead {
	data, err := fsx.ReadFile(ws.Marker)
	if errors.Is(err, fs.ErrNotExist) {
		return MarkerRead{}
	}
	if err != nil {
		return MarkerRead{Exists: true, Err: Wrapf(err, "Invalid EchoesVault marker: %s", OSDetail(err))}
	}
	text, err := pytext.DecodeText(data)
	if err != nil {
		return MarkerRead{Exists: true, Err: Wrapf(err, "Invalid EchoesVault marker: %s", err.Error())}
	}
	v, err := pyjson.Decode(text)
	if err != nil {
		return MarkerRead{Exists: true, Err: Wrapf(err, "Invalid EchoesVault marker: %s", err.Error())}
	}
	if v.Kind != pyjson.Object {
		return MarkerRead{Exists: true, Err: Errorf("Invalid EchoesVault marker: root must be an object.")}
	}
	return MarkerRead{Exists: true, Value: v}
}

func (m MarkerRead) field(key string) pyjson.Value {
	if m.Value.Obj == nil {
		return pyjson.NullValue()
	}
	v, ok := m.Value.Obj.Get(key)
	if !ok {
		return pyjson.NullValue()
	}
	return v
}

// ProtocolValue returns the marker's protocolVersion (null when absent).
func (m MarkerRead) ProtocolValue() pyjson.Value { return m.field("protocolVersion") }

var markerFields = []string{"generatedIndex", "dailyLayout", "runtime", "requiredFrontmatter"}

// Problems applies the gate's field checks (echoes-conformance §7.3 steps 2-4) and returns the
// gate message and the health message (echoes-conformance §18.4) for the first failure.
func (m MarkerRead) Problems() (gate, health string) {
	pv := m.field("protocolVersion")
	if !pyjson.Equal(pv, pyjson.Str(ProtocolVersion)) {
		r := pyjson.Repr(pv)
		// The same words for the read-only commands (search, hash) as for the
		// writers (issue 11 item 9 asked): echoes-conformance §7.3 quotes this one message for
		// every gated command, and expected errors are the messages quoted there
		// (echoes-conformance §4.4), which adapters may match. Kept byte for byte.
		return "Unsupported EchoesVault protocol " + r + "; this runtime supports 1.0.0. Upgrade the agent adapter before writing.",
			"unsupported marker protocol: " + r
	}
	sv := m.field("schemaVersion")
	if !pyjson.Equal(sv, pyjson.Int(markerSchemaVersion)) {
		r := pyjson.Repr(sv)
		return "Unsupported EchoesVault marker schema " + r + "; this engine supports schema 3. Run init or migrate explicitly.",
			"unsupported marker schema: " + r
	}
	for _, key := range markerFields {
		want, _ := CanonicalMarker.Obj.Get(key)
		if !pyjson.Equal(m.field(key), want) {
			return "Invalid EchoesVault marker field '" + key + "'. Run init or migrate explicitly.",
				"invalid marker field: " + key
		}
	}
	return "", ""
}

// Valid reports whether the marker exists, parses and passes every check.
func (m MarkerRead) Valid() bool {
	if !m.Exists || m.Err != nil {
		return false
	}
	g, _ := m.Problems()
	return g == ""
}

// Gate is the check every command that needs an initialized vault runs
// first (echoes-conformance §7.3). It writes nothing.
func (ws *Workspace) Gate() error {
	m := ws.ReadMarker()
	if !m.Exists {
		if ws.LegacyVaultDetected() {
			return Errorf("Legacy EchoesVault detected. Run the echoes-init workflow to migrate it.")
		}
		return Errorf("EchoesVault is not initialized. Run the echoes-init workflow first.")
	}
	if m.Err != nil {
		return m.Err
	}
	if g, _ := m.Problems(); g != "" {
		return Errorf("%s", g)
	}
	return nil
}

// LegacyVaultDetected implements echoes-conformance §7.5.
func (ws *Workspace) LegacyVaultDetected() bool {
	if fsx.IsRegular(ws.Marker) {
		return false
	}
	if fsx.IsRegular(ws.Index) {
		return true
	}
	if names, err := listPageNames(ws.Pages); err == nil && len(names) > 0 {
		return true
	}
	found := false
	WalkDaily(ws.Daily, func(string) bool { found = true; return false })
	return found
}

// MarkerJSON is health's and protocol's marker object (echoes-conformance §18.4).
func (m MarkerRead) JSON() pyjson.Value {
	o := pyjson.NewObj()
	switch {
	case !m.Exists:
		o.Set("exists", pyjson.Boolean(false)).Set("valid", pyjson.Boolean(false)).
			Set("value", pyjson.NullValue()).Set("error", pyjson.Str("initialization marker is missing"))
	case m.Err != nil:
		o.Set("exists", pyjson.Boolean(true)).Set("valid", pyjson.Boolean(false)).
			Set("value", pyjson.NullValue()).Set("error", pyjson.Str(m.Err.Msg))
	default:
		_, h := m.Problems()
		o.Set("exists", pyjson.Boolean(true)).Set("valid", pyjson.Boolean(h == "")).Set("value", m.Value)
		if h == "" {
			o.Set("error", pyjson.NullValue())
		} else {
			o.Set("error", pyjson.Str(h))
		}
	}
	return pyjson.ObjectValue(o)
}

// WriteMarker implements echoes-conformance §7.4 for init/migrate/upgrade/configure-agents.
// It returns whether the file was (re)written.
func (w *Writer) WriteMarker() (bool, error) {
	m := w.ws.ReadMarker()
	if m.Err != nil {
		// An unreadable marker may be a conflicted or foreign file: never
		// overwrite it silently.
		return false, m.Err
	}
	if m.Exists {
		pv := m.ProtocolValue()
		if pv.Kind != pyjson.Null && !pyjson.Equal(pv, pyjson.Str(ProtocolVersion)) {
			return false, Errorf("Unsupported EchoesVault protocol %s; this runtime supports 1.0.0. Upgrade the agent adapter before writing.", pyjson.Repr(pv))
		}
		if pyjson.Equal(m.Value, CanonicalMarker) {
			return false, nil
		}
	}
	return true, w.Write(w.ws.Marker, []byte(canonicalMarkerText))
}
