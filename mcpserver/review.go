package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/git-echoes/git-echoes/gitvault/review"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// The review tools (issue 9): echoes_diff and echoes_log, read-only views
// of memory's Git history, bounded like the other tools.

const (
	echoesDiffSchema = `{"type":"object","additionalProperties":false,"properties":{` +
		`"revisions":{"type":"array","maxItems":2,"items":{"type":"string","minLength":1,"maxLength":256},` +
		`"description":"As for git diff: [] the merge base of HEAD and its upstream against HEAD; [A] A against HEAD; [A, B] or [\"A..B\"] A against B; [\"A...B\"] the merge base of A and B against B."},` +
		`"worktree":{"type":"boolean","default":false,"description":"Compare with the work tree instead of HEAD (at most one revision)."},` +
		`"format":{"type":"string","enum":["markdown","json","text"],"default":"markdown","description":"markdown: the pull-request summary; json: everything; text: plain lines."}}}`
	echoesLogSchema = `{"type":"object","additionalProperties":false,"required":["target"],"properties":{` +
		`"target":{"type":"string","minLength":1,"maxLength":1000,"description":"A page name (auth-flow or auth-flow.md), a vault path, or a memory id (mem_...)."},` +
		`"follow":{"type":"boolean","default":false,"description":"Continue across renames, as git log --follow."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":1000,"default":50},` +
		`"rev":{"type":"string","minLength":1,"maxLength":256,"default":"HEAD","description":"Where the history starts."}}}`
)

func reviewTools(cfg *Config) []*tool {
	v := &vaultServer{cfg}
	readOnly := mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	return []*tool{{
		def: &mcp.Tool{Name: "echoes_diff",
			Description: "What changed in project memory between two Git snapshots: pages added, removed, renamed, updated (summary, status, deprecations), daily entries and ECC team memories added, project-scope memories committed. Reads Git only; changes nothing.",
			InputSchema: json.RawMessage(echoesDiffSchema), Annotations: withTitle(readOnly, "Diff memory between revisions")},
		run: v.diff,
	}, {
		def: &mcp.Tool{Name: "echoes_log",
			Description: "The history of one EchoesVault page or ECC memory: commit, date, author, agent, the summary at that commit and lines changed, newest first. Reads Git only; changes nothing.",
			InputSchema: json.RawMessage(echoesLogSchema), Annotations: withTitle(readOnly, "History of a page or memory")},
		run: v.log,
	}}
}

func argBool(args *pyjson.Obj, key string) bool {
	v, ok := args.Get(key)
	return ok && v.Kind == pyjson.Bool && v.B
}

func (v *vaultServer) diff(_ context.Context, args *pyjson.Obj) (*mcp.CallToolResult, error) {
	rr, err := review.ParseRevRange(argStrings(args, "revisions", nil), argBool(args, "worktree"))
	if err != nil {
		return vaultError(err), nil
	}
	res, err := review.Diff(v.eng(), rr)
	if err != nil {
		return vaultError(err), nil
	}
	switch argString(args, "format", "markdown") {
	case "json":
		return textResult(truncateLines(pyjson.Pretty(res.JSON()), v.cfg.MaxOutput)), nil
	case "text":
		return textResult(truncateLines(res.Text(), v.cfg.MaxOutput)), nil
	}
	// Markdown bounds itself in bytes, which are never fewer than
	// characters; the "N more" lines say what was left out.
	return textResult(truncateLines(res.Markdown(min(v.cfg.MaxOutput, review.MarkdownLimit)), v.cfg.MaxOutput)), nil
}

func (v *vaultServer) log(_ context.Context, args *pyjson.Obj) (*mcp.CallToolResult, error) {
	res, err := review.Log(v.eng(), review.LogOptions{Target: argString(args, "target", ""), Follow: argBool(args, "follow"),
		Limit: argInt(args, "limit", 50), Rev: argString(args, "rev", "HEAD")})
	if err != nil {
		return vaultError(err), nil
	}
	entries := res.Entries
	text, _, ok := fitItems(len(entries), v.cfg.MaxOutput, func(k int) string {
		part := *res
		part.Entries = entries[:k]
		o := part.JSON().Obj
		if k < len(entries) {
			o.Set("outputTruncated", pyjson.Boolean(true)).Set("omittedEntries", pyjson.Int(int64(len(entries)-k)))
		}
		return pyjson.Pretty(o.Value())
	})
	if !ok {
		return vaultError(errors.New("The history does not fit in --max-output; raise it.")), nil
	}
	return textResult(text), nil
}
