package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Structured results (MCP 2025-06-18 and later): every tool declares an
// outputSchema, and every successful result carries structuredContent next
// to the text content it always had. The text is the contract clients have
// read until now and stays byte for byte what it was; the structured
// content is derived from it by one rule, in handle:
//
//   - a text that is a JSON object (every memory_* result, and the
//     echoes_* JSON reports) is that object;
//   - any other text (echoes_start's and the status card's Markdown, or a
//     JSON report cut by --max-output into whole lines and a note) is
//     {"text": <the text>}.
//
// The echoes_* tools that name pages then add each page's freshness
// (field "freshness", see stale.go): additional fields of the structured
// content only, never of the text.
//
// Tool errors (isError) carry text only: clients do not validate them
// against the outputSchema.
//
// A new tool declares its schema with OutputSchema on its mcp.Tool, with
// the same keywords as the input schemas (checkSchema); one without is
// given genericOutputSchema, which the rule above always satisfies.

// textProperty is the {"text": ...} form of a result that is not a JSON
// object.
const textProperty = `"text":{"type":"string","description":"The result's text when it is not a JSON object: Markdown, or a JSON report cut to fit --max-output."}`

// genericOutputSchema is the schema of a tool that declares none.
const genericOutputSchema = `{"type":"object","description":"The result's JSON object, or {\"text\": ...} when the text is not one.","properties":{` + textProperty + `}}`

// The memory tools' results are always JSON objects (ecc-conformance §17.6):
// one that does not fit is a JSON-RPC error, never cut.
const (
	memoryObject = `{"type":"object","description":"A memory without its body: schema, id, title, kind, scope, trust, status, sourceHarness, targetHarnesses, tags, links, createdAt, updatedAt."}`

	memorySaveOutput = `{"type":"object","required":["memory"],"properties":{"memory":` + memoryObject + `}}`

	memorySearchOutput = `{"type":"object","required":["results","diagnostics"],"properties":{` +
		`"results":{"type":"array","description":"Ranked results, best first.","items":{"type":"object","required":["memory","score","excerpt"],"properties":{"memory":` + memoryObject + `,"score":{"type":"integer"},"excerpt":{"type":"string"}}}},` +
		`"diagnostics":{"type":"object","description":"The scan's limits: invalidFileCount, skippedSymlinkCount, scannedBytes, truncated, diagnosticsTruncated (path lists are always empty)."},` +
		`"outputTruncated":{"type":"boolean","description":"Present when lower-ranked results were left out to fit --max-output."},` +
		`"omittedResults":{"type":"integer"}}}`

	memoryReadOutput = `{"type":"object","required":["memory","backlinks","backlinksTruncated"],"properties":{` +
		`"memory":{"type":"object","description":"The whole memory, body included."},` +
		`"backlinks":{"type":"array","items":{"type":"object"}},` +
		`"backlinksTruncated":{"type":"boolean"},` +
		`"outputTruncated":{"type":"boolean"},"omittedBacklinks":{"type":"integer"}}}`

	memoryDoctorOutput = `{"type":"object","required":["schemaVersion","ok","memoryCount"],"properties":{` +
		`"schemaVersion":{"type":"string"},"ok":{"type":"boolean"},"memoryCount":{"type":"integer"},` +
		`"invalidFileCount":{"type":"integer"},"duplicateIdCount":{"type":"integer"},"brokenLinkCount":{"type":"integer"},` +
		`"skippedSymlinkCount":{"type":"integer"},"scannedBytes":{"type":"integer"},"truncated":{"type":"boolean"},"diagnosticsTruncated":{"type":"boolean"}}}`
)

// The echoes_* results: the engine's JSON reports (cut into {"text"} when
// over --max-output, except search and read_page, which drop whole items
// and stay JSON) and Markdown.
const (
	echoesStatusOutput = `{"type":"object","description":"format json: the inspect report (ok, workspace, vault, state, indexRefresh, health, ...); format card: {\"text\": <the Markdown status card>}.","properties":{` +
		`"ok":{"type":"boolean"},"workspace":{"type":"string"},"vault":{"type":"string"},"state":{"type":"object"},"health":{"type":"object"},` + textProperty + `}}`

	echoesSearchOutput = `{"type":"object","required":["ok","query","truncated","results"],"properties":{` +
		`"ok":{"type":"boolean"},"query":{"type":"string"},"truncated":{"type":"boolean","description":"More lines matched than the limit."},` +
		`"results":{"type":"array","items":{"type":"object","required":["file","line","text"],"properties":{"file":{"type":"string"},"line":{"type":"integer"},"text":{"type":"string"},` + freshnessProperty + `}}},` +
		`"outputTruncated":{"type":"boolean"},"omittedResults":{"type":"integer"}}}`

	echoesReadPageOutput = `{"type":"object","required":["ok","page","sha256","totalLines","startLine","endLine","truncated","content"],"properties":{` +
		`"ok":{"type":"boolean"},"page":{"type":"string"},"sha256":{"type":"string","description":"The whole page's hash, to pass as expectedSha256."},` +
		`"totalLines":{"type":"integer"},"startLine":{"type":"integer"},"endLine":{"type":"integer"},"truncated":{"type":"boolean"},` +
		`"nextStartLine":{"type":"integer","description":"Present when truncated: the startLine that reads on."},"content":{"type":"string"},` + freshnessProperty + `}}`

	echoesUpsertOutput = `{"type":"object","properties":{` +
		`"ok":{"type":"boolean"},"action":{"type":"string","description":"created, updated or unchanged."},"page":{"type":"string"},"sha256":{"type":"string"},"indexChanged":{"type":"boolean"},` + freshnessProperty + `,` + textProperty + `}}`

	echoesAppendOutput = `{"type":"object","properties":{` +
		`"ok":{"type":"boolean"},"dailyLog":{"type":"string"},"kind":{"type":"string"},"agent":{"type":"string"},` + textProperty + `}}`

	echoesStartOutput = `{"type":"object","description":"{\"text\": <the Markdown session context: index and recent session entries>}.","properties":{` + textProperty + `}}`

	echoesEndOutput = `{"type":"object","properties":{` +
		`"ok":{"type":"boolean"},"dailyLog":{"type":"string"},"pagesWritten":{"type":"integer"},"index":{"type":"string"},"agent":{"type":"string"},` + textProperty + `}}`
)

// echoesFindOutput is echoes_find's JSON answer (format json) or
// {"text": ...} (text, markdown).
const echoesFindOutput = `{"type":"object","properties":{` +
	`"ok":{"type":"boolean"},"query":{"type":"string"},` +
	`"hits":{"type":"array","items":{"type":"object","required":["source","file","score","lines"],"properties":{` +
	`"source":{"type":"string","enum":["page","daily","memory"]},"file":{"type":"string"},"id":{"type":"string"},"score":{"type":"number"},"title":{"type":"string"},` +
	`"summary":{"type":"string"},"type":{"type":"string"},"stack":{"type":"array","items":{"type":"string"}},"status":{"type":"string"},"deprecated":{"type":"boolean"},` +
	`"replacedBy":{"type":"array","items":{"type":"string"}},"kind":{"type":"string"},"scope":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},` +
	`"lines":{"type":"array","items":{"type":"object"}},` + freshnessProperty + `}}},` +
	`"more":{"type":"boolean"},"omitted":{"type":"integer"},"skippedPages":{"type":"array","items":{"type":"object"}},"memoryDiagnostics":{"type":"object"},` + textProperty + `}}`

// structured derives a successful result's structuredContent from its text
// by the rule above. A result that already has structured content, or is
// not one text block, is left alone.
func structured(res *mcp.CallToolResult) {
	if res == nil || res.IsError || res.StructuredContent != nil || len(res.Content) == 0 {
		return
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return
	}
	text := bytes.TrimLeft([]byte(tc.Text), " \t\r\n")
	if len(text) > 0 && text[0] == '{' && json.Valid(text) {
		var compact bytes.Buffer
		if json.Compact(&compact, text) == nil {
			res.StructuredContent = json.RawMessage(compact.Bytes())
			return
		}
	}
	obj, _ := json.Marshal(map[string]string{"text": tc.Text})
	res.StructuredContent = json.RawMessage(obj)
}

// protocolKey carries the session's negotiated protocol revision into a
// tool's run.
type protocolKey struct{}

// sessionProtocol is the negotiated revision of the session serving req:
// initialize's, or the 2026-07-28 per-request one.
func sessionProtocol(req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return ""
	}
	if p := req.Session.InitializeParams(); p != nil {
		return p.ProtocolVersion
	}
	return ""
}

// resourceLinksAllowed reports whether results of this call may carry
// resource_link content, which MCP added in 2025-06-18: an older client
// could not decode it.
func resourceLinksAllowed(ctx context.Context) bool {
	v, _ := ctx.Value(protocolKey{}).(string)
	return v >= "2025-06-18"
}
