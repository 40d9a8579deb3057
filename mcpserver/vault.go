package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/health"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// EchoesVault tool schemas. Field names are the protocol's payload keys, so
// a tool call is the same JSON an adapter would pipe to `upsert`/`end`.
const (
	echoesStatusSchema = `{"type":"object","additionalProperties":false,"properties":{` +
		`"format":{"type":"string","enum":["json","card"],"default":"json","description":"json: the full inspect report; card: the Markdown status card."}}}`
	echoesSearchSchema = `{"type":"object","additionalProperties":false,"required":["query"],"properties":{` +
		`"query":{"type":"string","minLength":1,"maxLength":1000,"description":"Literal, case-insensitive text to find in page bodies."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":500,"default":100}}}`
	echoesReadPageSchema = `{"type":"object","additionalProperties":false,"required":["filename"],"properties":{` +
		`"filename":{"type":"string","minLength":1,"description":"Page name, e.g. auth-flow or auth-flow.md."},` +
		`"startLine":{"type":"integer","minimum":1,"default":1,"description":"First line to return; use nextStartLine of a truncated read to continue."}}}`
	echoesUpsertSchema = `{"type":"object","additionalProperties":false,"required":["filename","content"],"properties":{` +
		`"filename":{"type":"string","minLength":1},` +
		`"content":{"type":"string","minLength":1,"description":"The complete page: frontmatter (type, stack, status, summary) and body."},` +
		`"expectedSha256":{"type":"string","pattern":"^[0-9a-f]{64}$","description":"Required when the page exists: the sha256 from echoes_read_page."},` +
		`"indexDescription":{"type":"string","description":"Summary to inject when the frontmatter has none."}}}`
	echoesAppendSchema = `{"type":"object","additionalProperties":false,"required":["entry"],"properties":{` +
		`"entry":{"type":"string","minLength":1,"description":"Scratchpad note for today's daily log."},` +
		`"agent":{"type":"string","minLength":1,"description":"Optional; must equal the server's agent identity when it has one."}}}`
	echoesStartSchema = `{"type":"object","additionalProperties":false,"properties":{` +
		`"recent":{"type":"integer","minimum":0,"maximum":10,"default":3,"description":"Number of recent session entries to include."}}}`
	echoesEndSchema = `{"type":"object","additionalProperties":false,"required":["confirmExplicitUserEnd","dailySummary"],"properties":{` +
		`"confirmExplicitUserEnd":{"type":"boolean","description":"Must be true, and only because the user explicitly asked to end or save the session."},` +
		`"dailySummary":{"type":"string","minLength":1},` +
		`"pages":{"type":"array","maxItems":100,"items":{"type":"object","additionalProperties":false,"required":["filename","content"],"properties":{` +
		`"filename":{"type":"string","minLength":1},"content":{"type":"string","minLength":1},` +
		`"expectedSha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},"indexDescription":{"type":"string"}}}},` +
		`"agent":{"type":"string","minLength":1,"description":"Optional; must equal the server's agent identity when it has one."}}}`
)

// vaultServer holds the echoes_* tools' configuration.
type vaultServer struct{ cfg *Config }

func vaultTools(cfg *Config) []*tool {
	v := &vaultServer{cfg}
	readOnly := mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	return []*tool{{
		def: &mcp.Tool{Name: "echoes_status",
			Description: "Read-only EchoesVault health report: pages, index freshness, invalid frontmatter, conflicts, Git readiness. Changes nothing.",
			InputSchema: json.RawMessage(echoesStatusSchema), OutputSchema: json.RawMessage(echoesStatusOutput), Annotations: withTitle(readOnly, "EchoesVault status")},
		run: v.status,
	}, {
		def: &mcp.Tool{Name: "echoes_search",
			Description: "Literal, case-insensitive search of EchoesVault page bodies; returns file, line and text of each hit.",
			InputSchema: json.RawMessage(echoesSearchSchema), OutputSchema: json.RawMessage(echoesSearchOutput), Annotations: withTitle(readOnly, "Search EchoesVault pages")},
		run: v.search,
	}, {
		def: &mcp.Tool{Name: "echoes_read_page",
			Description: "Read one EchoesVault page with its sha256. Pass that sha256 as expectedSha256 when replacing the page; it is the hash of the whole page even when the returned content is truncated.",
			InputSchema: json.RawMessage(echoesReadPageSchema), OutputSchema: json.RawMessage(echoesReadPageOutput), Annotations: withTitle(readOnly, "Read an EchoesVault page")},
		run: v.readPage,
	}, {
		def: &mcp.Tool{Name: "echoes_upsert_page",
			Description: "Create or replace one EchoesVault page and refresh the index. Replacing an existing page requires expectedSha256 from echoes_read_page; a stale hash is refused.",
			InputSchema: json.RawMessage(echoesUpsertSchema), OutputSchema: json.RawMessage(echoesUpsertOutput),
			// It replaces a page's whole content; the hash check makes the
			// replacement deliberate, not harmless. Repeating a call changes
			// nothing further: the same content is "unchanged", and a hash
			// that matched before the first call is stale after it.
			Annotations: &mcp.ToolAnnotations{Title: "Create or replace a page", DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}},
		run: v.upsert,
	}, {
		def: &mcp.Tool{Name: "echoes_append",
			Description: "Append a scratchpad note to today's EchoesVault daily log (a new, uniquely named entry; nothing is overwritten).",
			InputSchema: json.RawMessage(echoesAppendSchema), OutputSchema: json.RawMessage(echoesAppendOutput),
			Annotations: &mcp.ToolAnnotations{Title: "Append a daily note", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}},
		preCheck: nil, run: v.append,
	}, {
		def: &mcp.Tool{Name: "echoes_start",
			Description: "Start an EchoesVault session: refresh the generated index and return the session context (index and recent session entries) as Markdown.",
			InputSchema: json.RawMessage(echoesStartSchema), OutputSchema: json.RawMessage(echoesStartOutput),
			// It rewrites only the generated, ignored index and local
			// session state; repeating it changes nothing further.
			Annotations: &mcp.ToolAnnotations{Title: "Start a session", DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}},
		run: v.start,
	}, {
		def: &mcp.Tool{Name: "echoes_end",
			Description: "Finalize the EchoesVault session: write the daily summary and the given pages. Use ONLY after the user explicitly asked to end or save the session, and then set confirmExplicitUserEnd to true; never call it on your own initiative. Existing pages need expectedSha256.",
			InputSchema: json.RawMessage(echoesEndSchema), OutputSchema: json.RawMessage(echoesEndOutput),
			Annotations: &mcp.ToolAnnotations{Title: "End and save the session", DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}},
		run: v.end,
	}}
}

func (v *vaultServer) eng() *gitvault.Engine { return v.cfg.Engine }

func (v *vaultServer) status(_ context.Context, args *pyjson.Obj) (*mcp.CallToolResult, error) {
	in := health.Inspect(v.eng())
	if argString(args, "format", "json") == "card" {
		return textResult(truncateLines(in.Card(), v.cfg.MaxOutput)), nil
	}
	return textResult(truncateLines(pyjson.Pretty(in.JSON()), v.cfg.MaxOutput)), nil
}

func (v *vaultServer) search(ctx context.Context, args *pyjson.Obj) (*mcp.CallToolResult, error) {
	res, err := v.eng().Search(argString(args, "query", ""), argInt(args, "limit", 100))
	if err != nil {
		return vaultError(err), nil
	}
	hits := res.Hits
	text, kept, ok := fitItems(len(hits), v.cfg.MaxOutput, func(k int) string {
		part := *res
		part.Hits = hits[:k]
		o := part.JSON().Obj
		if k < len(hits) {
			o.Set("outputTruncated", pyjson.Boolean(true)).Set("omittedResults", pyjson.Int(int64(len(hits)-k)))
		}
		return pyjson.Pretty(o.Value())
	})
	if !ok {
		return vaultError(errors.New("The search result does not fit in --max-output; raise it.")), nil
	}
	out := textResult(text)
	if resourceLinksAllowed(ctx) {
		out.Content = append(out.Content, pageLinks(hits[:kept])...)
	}
	return out, nil
}

// readPage returns whole lines from startLine on, as many as fit. The hash
// is always the whole page's, so a truncated read can still be followed by
// a safe upsert, and nextStartLine tells how to read the rest.
func (v *vaultServer) readPage(_ context.Context, args *pyjson.Obj) (*mcp.CallToolResult, error) {
	res, err := v.eng().ReadPage(argString(args, "filename", ""))
	if err != nil {
		return vaultError(err), nil
	}
	lines := strings.SplitAfter(res.Content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	start := argInt(args, "startLine", 1)
	if start > max(total, 1) {
		return vaultError(fmt.Errorf("startLine %d is past the end of the page (%d lines).", start, total)), nil
	}
	rest := lines[min(start-1, total):]
	text, kept, ok := fitItems(len(rest), v.cfg.MaxOutput, func(k int) string {
		o := res.JSON().Obj
		o.Delete("content")
		o.Set("totalLines", pyjson.Int(int64(total))).Set("startLine", pyjson.Int(int64(start))).
			Set("endLine", pyjson.Int(int64(start+k-1))).Set("truncated", pyjson.Boolean(k < len(rest)))
		if k < len(rest) {
			o.Set("nextStartLine", pyjson.Int(int64(start+k)))
		}
		return pyjson.Pretty(o.Set("content", pyjson.Str(strings.Join(rest[:k], ""))).Value())
	})
	if !ok || (kept == 0 && len(rest) > 0) {
		return vaultError(fmt.Errorf("Line %d of the page is longer than --max-output (%d characters) allows; raise --max-output to read it.", start, v.cfg.MaxOutput)), nil
	}
	return textResult(text), nil
}

func (v *vaultServer) upsert(_ context.Context, args *pyjson.Obj) (*mcp.CallToolResult, error) {
	return v.json(v.eng().Upsert(payload(args)))
}

func (v *vaultServer) append(_ context.Context, args *pyjson.Obj) (*mcp.CallToolResult, error) {
	if err := v.checkAgent("echoes_append", args); err != nil {
		return nil, err
	}
	return v.json(v.eng().Append(payload(args)))
}

func (v *vaultServer) start(_ context.Context, args *pyjson.Obj) (*mcp.CallToolResult, error) {
	out, err := v.eng().Start(argInt(args, "recent", 3))
	if err != nil {
		return vaultError(err), nil
	}
	return textResult(truncateLines(out, v.cfg.MaxOutput)), nil
}

// end finalizes only with an explicit confirmation: an agent deciding on its
// own that the session is over must not commit durable knowledge.
func (v *vaultServer) end(_ context.Context, args *pyjson.Obj) (*mcp.CallToolResult, error) {
	if c, _ := args.Get("confirmExplicitUserEnd"); !c.B {
		return vaultError(errors.New("echoes_end refused: set confirmExplicitUserEnd to true only after the user explicitly asked to end or save the session.")), nil
	}
	if err := v.checkAgent("echoes_end", args); err != nil {
		return nil, err
	}
	p := args.Clone()
	p.Delete("confirmExplicitUserEnd")
	return v.json(v.eng().End(payload(p), true))
}

// checkAgent enforces the server-side writer identity: with --agent or
// ECC_MEMORY_HARNESS configured, a client cannot sign daily entries as
// another agent. Without one, the argument is the only identity there is.
func (v *vaultServer) checkAgent(name string, args *pyjson.Obj) error {
	a, ok := args.Get("agent")
	if !ok || v.cfg.Agent == "" {
		return nil
	}
	if n, err := gitvault.NormalizeAgent(a.S); err != nil || n != v.cfg.Agent {
		return invalidParams("Identity violation for %s: agent is fixed to this server's identity (%s) and cannot be chosen by the client.", name, v.cfg.Agent)
	}
	return nil
}

func (v *vaultServer) json(res pyjson.Value, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		return vaultError(err), nil
	}
	return textResult(truncateLines(pyjson.Pretty(res), v.cfg.MaxOutput)), nil
}

// payload serializes validated arguments as the engine's JSON payload.
func payload(args *pyjson.Obj) gitvault.Payload {
	data := []byte(pyjson.Compact(args.Value()))
	return func() ([]byte, error) { return data, nil }
}

// vaultError is a tool error in the CLI's one-line error shape
// {"ok": false, "error": "..."}: the engine's message, never a trace.
func vaultError(err error) *mcp.CallToolResult {
	msg := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(gitvault.ErrorMessage(err)) // one line
	return errorResult(pyjson.Compact(gitvault.ErrorReply(msg, nil)))
}
