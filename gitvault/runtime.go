package gitvault

import (
	"errors"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"sync"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// RuntimeStatus describes .echoes-vault/echoes_vault.py (echoes-conformance §18.5).
type RuntimeStatus struct {
	Exists, Recognized, Compatible, Current bool
	Engine, Protocol                        *[3]int
	Error                                   string
	Text                                    string // the file read as text, when readable
}

var (
	semverRe          = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\d+\.\d+$`) })
	EngineVersionRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^ENGINE_VERSION = "(\d+)\.(\d+)\.(\d+)"$`) })
	PluginVersionRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^PLUGIN_VERSION = "(\d+)\.(\d+)\.(\d+)"$`) })
	ProtocolVersionRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^PROTOCOL_VERSION = "(\d+)\.(\d+)\.(\d+)"$`) })
)

func ParseVersionLine(re *regexp.Regexp, text string) *[3]int {
	m := re.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	var v [3]int
	for i := 0; i < 3; i++ {
		n, err := strconv.Atoi(m[i+1])
		if err != nil {
			return nil
		}
		v[i] = n
	}
	return &v
}

// VersionString prints a version triple as x.y.z.
func VersionString(v *[3]int) string {
	if v == nil {
		return ""
	}
	return strconv.Itoa(v[0]) + "." + strconv.Itoa(v[1]) + "." + strconv.Itoa(v[2])
}

// CompareVersions compares two triples.
func CompareVersions(a, b [3]int) int {
	for i := 0; i < 3; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

var (
	ProtocolTriple = [3]int{1, 0, 0}
	EngineTriple   = [3]int{1, 1, 1}
)

// RuntimeStatus inspects the project runtime file without running it.
func (ws *Workspace) RuntimeStatus() RuntimeStatus {
	fi, err := os.Lstat(ws.Runtime)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink != 0 && !exists(ws.Runtime)) {
		return RuntimeStatus{Error: "project runtime is missing"}
	}
	if err != nil {
		return RuntimeStatus{Exists: true, Error: OSDetail(err)}
	}
	if !fi.Mode().IsRegular() {
		return RuntimeStatus{Exists: true, Error: "project runtime is not a regular file"}
	}
	data, err := fsx.ReadFile(ws.Runtime)
	if err != nil {
		return RuntimeStatus{Exists: true, Error: OSDetail(err)}
	}
	text, err := pytext.DecodeText(data)
	if err != nil {
		return RuntimeStatus{Exists: true, Error: err.Error()}
	}
	rs := RuntimeStatus{Exists: true, Text: text}
	rs.Engine = ParseVersionLine(EngineVersionRe(), text)
	if rs.Engine == nil {
		rs.Engine = ParseVersionLine(PluginVersionRe(), text)
	}
	rs.Protocol = ParseVersionLine(ProtocolVersionRe(), text)
	rs.Recognized = rs.Engine != nil && rs.Protocol != nil
	rs.Compatible = rs.Protocol != nil && *rs.Protocol == ProtocolTriple
	rs.Current = rs.Compatible && rs.Engine != nil && *rs.Engine == EngineTriple
	if !rs.Recognized {
		rs.Error = "project runtime version metadata is missing"
	}
	return rs
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// JSON renders the projectRuntime object.
func (rs RuntimeStatus) JSON() pyjson.Value {
	ver := func(v *[3]int) pyjson.Value {
		if v == nil {
			return pyjson.NullValue()
		}
		return pyjson.Str(VersionString(v))
	}
	errV := pyjson.NullValue()
	if rs.Error != "" {
		errV = pyjson.Str(rs.Error)
	}
	return pyjson.ObjectValue(pyjson.NewObj().Set("exists", pyjson.Boolean(rs.Exists)).
		Set("recognized", pyjson.Boolean(rs.Recognized)).
		Set("engineVersion", ver(rs.Engine)).
		Set("protocolVersion", ver(rs.Protocol)).
		Set("compatible", pyjson.Boolean(rs.Compatible)).
		Set("current", pyjson.Boolean(rs.Current)).
		Set("error", errV))
}

// Protocol reports versions, marker and runtime (echoes-conformance §15.2). Read-only; it works
// without a marker.
func (e *Engine) Protocol() pyjson.Value {
	m := e.WS.ReadMarker()
	vpv := pyjson.NullValue()
	if m.Exists && m.Err == nil {
		vpv = m.ProtocolValue()
	}
	return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
		Set("managedAdapterVersion", pyjson.Str(ManagedAdapterVersion)).
		Set("codexAdapterVersion", pyjson.Str(ManagedAdapterVersion)).
		Set("engineVersion", pyjson.Str(EngineVersion)).
		Set("supportedProtocolVersion", pyjson.Str(ProtocolVersion)).
		Set("vaultProtocolVersion", vpv).
		Set("marker", m.JSON()).
		Set("projectRuntime", e.WS.RuntimeStatus().JSON()).
		Set("runtime", pyjson.Str(e.WS.Runtime)).
		Set("protocol", pyjson.Str(e.WS.Protocol)).
		Set("commands", pyjson.Strs(commands)))
}

// StateFileValid returns "" when the parsed state passes the echoes-conformance §18.4 checks,
// else the health error message.
func StateFileValid(raw pyjson.Value) string {
	if raw.Kind != pyjson.Object {
		return "state root is not an object"
	}
	get := func(k string) pyjson.Value {
		v, ok := raw.Obj.Get(k)
		if !ok {
			return pyjson.NullValue()
		}
		return v
	}
	if v := get("version"); !pyjson.Equal(v, pyjson.Int(stateSchemaVersion)) {
		return "unsupported state version: " + pyjson.Repr(v)
	}
	if v := get("protocolVersion"); !pyjson.Equal(v, pyjson.Str(ProtocolVersion)) {
		return "state protocol mismatch: " + pyjson.Repr(v)
	}
	// The reference accepts only its own engine version here; any x.y.z is
	// accepted so that state another conforming engine wrote is not
	// reported as invalid (the protocol version is what gates writes).
	if v := get("engineVersion"); v.Kind != pyjson.String || !semverRe().MatchString(v.S) {
		return "state engine mismatch: " + pyjson.Repr(v)
	}
	if v := get("lastWriter"); v.Kind != pyjson.Object {
		return "state lastWriter must be an object"
	}
	return ""
}
