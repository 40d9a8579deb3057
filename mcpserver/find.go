package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-echoes/git-echoes/gitvault/find"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// echoes_find: `git echoes find` as a tool (issue 12), the same options and
// the same answer. It only reads the vaults; the derived local index it
// refreshes is a cache, so the tool is read-only.
const echoesFindSchema = `{"type":"object","additionalProperties":false,"required":["query"],"properties":{` +
	`"query":{"type":"string","minLength":1,"maxLength":500,"description":"Words (any may match; more matches rank higher), \"quoted phrases\", -word to exclude, word* for a prefix. Matching folds case and accents, splits camelCase, snake_case and hyphens, and stems English words."},` +
	`"format":{"type":"string","enum":["json","text","markdown"],"default":"json"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":100,"default":10},` +
	`"budget":{"type":"integer","minimum":1,"description":"Bound the whole answer to this many characters (whole hits are left out, and counted); at most the server's --max-output."},` +
	`"daily":{"type":"boolean","default":false,"description":"Include the daily entries."},` +
	`"scope":{"type":"array","maxItems":3,"items":{"type":"string","enum":["project","team","user"]},"description":"Memory scopes (default project and team)."},` +
	`"type":{"type":"array","items":{"type":"string","minLength":1},"description":"Page types (pages only)."},` +
	`"stack":{"type":"array","items":{"type":"string","minLength":1},"description":"Page stacks (pages only)."},` +
	`"status":{"type":"array","items":{"type":"string","minLength":1},"description":"Page or memory statuses (memories: active unless given)."},` +
	`"kind":{"type":"array","items":{"type":"string","minLength":1},"description":"Memory kinds (memories only)."},` +
	`"tag":{"type":"array","items":{"type":"string","minLength":1},"description":"Memory tags (memories only)."},` +
	`"since":{"type":"string","pattern":"^\\d{4}-\\d{2}-\\d{2}$","description":"Only documents modified, dated or updated on or after this date."}}}`

func findTool(cfg *Config) *tool {
	v := &vaultServer{cfg}
	return &tool{
		def: &mcp.Tool{Name: "echoes_find",
			Description: "Ranked (BM25) search over EchoesVault pages, optionally daily entries, and ECC memories: each hit names its file or memory id, score, summary and best-matching lines. Unlike echoes_search it finds inflections, hyphen/space and camelCase/snake_case variants and accents.",
			InputSchema: json.RawMessage(echoesFindSchema), OutputSchema: json.RawMessage(echoesFindOutput),
			Annotations: withTitle(mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}, "Ranked search of both vaults")},
		run: v.find, enrich: v.enrichList("hits", "file"),
	}
}

func (v *vaultServer) find(_ context.Context, args *pyjson.Obj) (*mcp.CallToolResult, error) {
	opt := find.Options{
		Query: argString(args, "query", ""), Limit: argInt(args, "limit", find.DefaultLimit),
		Scopes: argStrings(args, "scope", nil), Types: argStrings(args, "type", nil),
		Stacks: argStrings(args, "stack", nil), Statuses: argStrings(args, "status", nil),
		Kinds: argStrings(args, "kind", nil), Tags: argStrings(args, "tag", nil),
		Since: argString(args, "since", ""),
	}
	if d, ok := args.Get("daily"); ok {
		opt.Daily = d.B
	}
	if !v.cfg.AllowUserScope && slices.Contains(opt.Scopes, "user") {
		return vaultError(errors.New("The user memory scope is not available to this server (ECC_MEMORY_ALLOW_USER_SCOPE=1 enables it).")), nil
	}
	budget := min(argInt(args, "budget", v.cfg.MaxOutput), v.cfg.MaxOutput)
	res, err := find.Find(v.eng().WS, opt)
	if err != nil {
		return vaultError(err), nil
	}
	out, err := res.Render(argString(args, "format", "json"), budget)
	if err != nil {
		return vaultError(err), nil
	}
	return textResult(out), nil
}
