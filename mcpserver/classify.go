package mcpserver

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Classify decides what one input line is: a JSON-RPC message for the SDK,
// or a refusal to answer with id null. A refusal with code 0 is answered
// with nothing: a blank line (ecc-conformance §17.2 recommends skipping it)
// or a response, which this server, sending no requests, never awaits.
//
// The envelope rules are ecc-conformance §17.3's, which are JSON-RPC 2.0
// with MCP's narrowing:
//   - not JSON (nesting beyond encoding/json's depth bound included) →
//     -32700 Parse error;
//   - not an object (arrays, so batches, included), "jsonrpc" not exactly
//     "2.0", a method that is not a string of 1–128 characters, params
//     that are not an object, an id that is not a non-empty string of at
//     most 128 characters or a number whose value is a safe integer
//     (|n| ≤ 2^53−1, see validID) → -32600
//     Invalid Request.
func Classify(line []byte) (jsonrpc.Message, *jsonrpc.Error) {
	text := bytes.Trim(line, " \t\r\n")
	if len(text) == 0 {
		return nil, &jsonrpc.Error{}
	}
	if !json.Valid(text) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: msgInvalidJSON}
	}
	invalid := &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msgInvalidRequest}
	if text[0] != '{' {
		return nil, invalid
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(text, &env) != nil {
		return nil, invalid
	}
	var version string
	if json.Unmarshal(env["jsonrpc"], &version) != nil || version != "2.0" {
		return nil, invalid
	}
	rawID, hasID := env["id"]
	if hasID && !validID(rawID) {
		return nil, invalid
	}
	rawMethod, hasMethod := env["method"]
	if !hasMethod {
		// A response: an id and exactly one of result and error.
		_, hasResult := env["result"]
		_, hasError := env["error"]
		if hasID && hasResult != hasError {
			return nil, &jsonrpc.Error{}
		}
		return nil, invalid
	}
	var method string
	if json.Unmarshal(rawMethod, &method) != nil || method == "" || utf8.RuneCountInString(method) > 128 {
		return nil, invalid
	}
	if params, ok := env["params"]; ok && (len(params) == 0 || params[0] != '{') {
		return nil, invalid
	}
	msg, err := jsonrpc.DecodeMessage(text)
	if err != nil {
		return nil, invalid
	}
	// The SDK's decoder must have read the same envelope (it could match
	// keys differently, such as "ID" for "id").
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != method || req.ID.IsValid() != hasID {
		return nil, invalid
	}
	if hasID {
		var want any
		_ = json.Unmarshal(rawID, &want)
		if wantID, err := jsonrpc.MakeID(want); err != nil || wantID != req.ID {
			return nil, invalid
		}
	}
	return msg, nil
}

// maxSafeInteger is 2^53−1, JavaScript's Number.MAX_SAFE_INTEGER: the
// largest id every client can echo back exactly.
const maxSafeInteger = 1<<53 - 1

// validID reports whether raw (valid JSON) is an id ecc-conformance §17.3
// accepts: a non-empty string of at most 128 characters, or a number whose
// value is a safe integer (|n| ≤ 2^53−1). The value decides, not its
// spelling: the reference tests JSON.parse's number with
// Number.isSafeInteger, so 1.0 and 1e2 are the ids 1 and 100 and are
// answered as such, while 1.5 is refused. The SDK reads every number id as
// a float64 and keeps its integer value (jsonrpc.MakeID), so the response
// echoes the same id the reference's does, and SerialTransport matches it.
func validID(raw json.RawMessage) bool {
	switch {
	case len(raw) == 0:
		return false
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return false
		}
		return s != "" && utf8.RuneCountInString(s) <= 128
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		// JSON.parse's rounding is ParseFloat's (IEEE 754 round to
		// nearest); an overflow (1e999) is refused.
		f, err := strconv.ParseFloat(string(raw), 64)
		return err == nil && f == math.Trunc(f) && math.Abs(f) <= maxSafeInteger
	}
	return false // null, booleans, objects, arrays
}
