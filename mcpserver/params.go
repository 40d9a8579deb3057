package mcpserver

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// msgInvalidInitialize is the reference's answer to initialize params that
// miss a member the MCP schema requires (ecc-conformance §17.3).
const msgInvalidInitialize = "Invalid initialize parameters."

// paramsRequired lists the requests whose params the MCP schema
// (schema.ts, 2025-06-18 and later) requires. Without params the SDK
// answers -32600 Invalid Request, but the envelope is valid: it is the
// params that are wrong, which the JSON-RPC 2.0 specification (section 5.1) calls -32602 Invalid
// params, and so does the reference for tools/call (ecc-conformance §17.3:
// a missing tool name is -32602).
var paramsRequired = map[string]bool{
	"initialize":            true,
	"tools/call":            true,
	"prompts/get":           true,
	"resources/read":        true,
	"resources/subscribe":   true,
	"resources/unsubscribe": true,
	"completion/complete":   true,
	"logging/setLevel":      true,
}

// checkParams is the transport's check of a call's params before the SDK
// sees it: nil when the SDK may serve it, else the -32602 to answer.
//   - a request of paramsRequired without params;
//   - an initialize whose params lack a string protocolVersion, an object
//     capabilities, or an object clientInfo with non-empty string name and
//     version (the schema's InitializeRequest and Implementation; the SDK
//     accepts them missing, the reference refuses them, ecc-conformance §17.3).
func checkParams(req *jsonrpc.Request) *jsonrpc.Error {
	if req.Method == "initialize" {
		if !validInitialize(req.Params) {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msgInvalidInitialize}
		}
		return nil
	}
	if paramsRequired[req.Method] && len(req.Params) == 0 {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + req.Method + " requires params."}
	}
	return nil
}

func validInitialize(params json.RawMessage) bool {
	var p struct {
		ProtocolVersion *string         `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      *struct {
			Name    *string `json:"name"`
			Version *string `json:"version"`
		} `json:"clientInfo"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return false
	}
	return p.ProtocolVersion != nil && isObject(p.Capabilities) && p.ClientInfo != nil &&
		p.ClientInfo.Name != nil && *p.ClientInfo.Name != "" &&
		p.ClientInfo.Version != nil && *p.ClientInfo.Version != ""
}

func isObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }
