package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-echoes/git-echoes/gitvault/freshness"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// Memory freshness (issue 18, "Where it shows"): the echoes_stale tool is
// git echoes stale --format json, and the echoes_* results that name
// pages carry each page's verdict in their structuredContent. The texts
// of the protocol tools stay byte for byte what they were (a reference
// engine shares the vault): freshness is an additional field of the
// structured result only, present when it can be computed (a Git work
// tree with a commit) and left out otherwise.

const echoesStaleSchema = `{"type":"object","additionalProperties":false,"properties":{` +
	`"pages":{"type":"array","maxItems":1000,"items":{"type":"string","minLength":1,"maxLength":1000},"description":"Pages to check (auth-flow, auth-flow.md); none: every page."},` +
	`"memories":{"type":"boolean","default":false,"description":"Also check the ECC memories under .ecc/memory/ (their body citations, anchored at the commit HEAD was at their updated_at)."},` +
	`"rev":{"type":"string","minLength":1,"maxLength":256,"description":"Read the vault at this revision and check against it (default: the work tree against HEAD)."}}}`

// freshnessProperty is the structured field a page carries in echoes_*
// results.
const freshnessProperty = `"freshness":{"type":"object","required":["verdict","why"],"description":"The page's freshness against HEAD (as echoes_stale reports it); absent when it cannot be computed.","properties":{` +
	`"verdict":{"type":"string","enum":["fresh","moved","drifted","missing","uncited"],"description":"The worst verdict of the page's citations, or uncited."},` +
	`"why":{"type":"array","items":{"type":"string"},"description":"One factual line per citation that is not fresh: \"cites X, changed in 3 commits since this page, last 2026-11-28 'rotate keys'\"."}}}`

const echoesStaleOutput = `{"type":"object","required":["ok","rev","counts","documents"],"properties":{` +
	`"ok":{"type":"boolean"},"rev":{"type":"string","description":"The commit checked against."},` +
	`"counts":{"type":"object","description":"Documents by verdict: fresh, moved, drifted, missing, uncited."},` +
	`"documents":{"type":"array","items":{"type":"object","required":["path","kind","verdict","anchor","citations","invalidSources"],"properties":{` +
	`"path":{"type":"string"},"kind":{"type":"string","enum":["page","memory"]},"verdict":{"type":"string","enum":["fresh","moved","drifted","missing","uncited"]},` +
	`"anchor":{"type":"object","description":"The commit the document was written or confirmed against: commit (null for the work tree), date, worktree, verified, shallow."},` +
	`"citations":{"type":"array","items":{"type":"object","description":"cite, path, from, verdict, start/end, newPath, newStart/newEnd, note, why, and for a drifted citation count and commits."}},` +
	`"invalidSources":{"type":"array","items":{"type":"object"}}}}},` +
	`"outputTruncated":{"type":"boolean","description":"Present when documents were left out to fit --max-output."},` +
	`"omittedDocuments":{"type":"integer"}}}`

func staleTool(cfg *Config) *tool {
	v := &vaultServer{cfg}
	return &tool{
		def: &mcp.Tool{Name: "echoes_stale",
			Description: "Which EchoesVault pages (and optionally ECC memories) cite code that changed since they were written, from Git history: per citation fresh, moved, drifted (with the commits) or missing, per page the worst. The same report as git echoes stale --format json. Reads Git and the pages only; changes nothing (the verdict cache under .git is derived).",
			InputSchema: json.RawMessage(echoesStaleSchema), OutputSchema: json.RawMessage(echoesStaleOutput),
			Annotations: withTitle(mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}, "Memory freshness")},
		run: v.stale,
	}
}

func (v *vaultServer) stale(_ context.Context, args *pyjson.Obj) (*mcp.CallToolResult, error) {
	sel := freshness.Selection{Rev: argString(args, "rev", ""), Pages: argStrings(args, "pages", nil), Memories: argBool(args, "memories")}
	target, reps, _, err := freshness.Reports(v.eng(), sel)
	if err != nil {
		return vaultError(err), nil
	}
	// The counts are of every document checked, also when some are left out.
	counts, _ := freshness.JSON(target, reps).Obj.Get("counts")
	text, _, ok := fitItems(len(reps), v.cfg.MaxOutput, func(k int) string {
		o := freshness.JSON(target, reps[:k]).Obj
		o.Set("counts", counts)
		if k < len(reps) {
			o.Set("outputTruncated", pyjson.Boolean(true)).Set("omittedDocuments", pyjson.Int(int64(len(reps)-k)))
		}
		return pyjson.Pretty(o.Value())
	})
	if !ok {
		return vaultError(errors.New("The freshness report does not fit in --max-output; raise it.")), nil
	}
	return textResult(text), nil
}

// pageFreshness returns the structured freshness of the named pages (file
// names in pages/) of the work tree against HEAD, by name; nil when it
// cannot be computed, so that the caller adds nothing.
func (v *vaultServer) pageFreshness(names []string) map[string]pyjson.Value {
	if len(names) == 0 || v.eng() == nil {
		return nil
	}
	_, reps, _, err := freshness.Reports(v.eng(), freshness.Selection{Pages: names})
	if err != nil {
		return nil
	}
	out := make(map[string]pyjson.Value, len(reps))
	for _, r := range reps {
		why := r.Lines()
		if why == nil {
			why = []string{}
		}
		out[path.Base(r.Path)] = pyjson.ObjectValue(pyjson.NewObj().
			Set("verdict", pyjson.Str(string(r.Verdict))).Set("why", pyjson.Strs(why)))
	}
	return out
}

// withFreshness adds page freshness to a result's structuredContent: at
// its top level for a result about one page (key "page", a path), or in
// each item of the array at listKey whose fileKey names a page. pageOf
// turns an item's file into a page name ("" when it is no page). The
// text content is not touched.
func (v *vaultServer) withFreshness(res *mcp.CallToolResult, listKey, fileKey string, pageOf func(string) string) {
	if res == nil || res.IsError || res.StructuredContent == nil {
		return
	}
	raw, ok := res.StructuredContent.(json.RawMessage)
	if !ok {
		return
	}
	sc, err := pyjson.Decode(string(raw))
	if err != nil || sc.Kind != pyjson.Object {
		return
	}
	var items []*pyjson.Obj
	var names []string
	seen := map[string]bool{}
	add := func(o *pyjson.Obj) {
		f, ok := o.Get(fileKey)
		if !ok || f.Kind != pyjson.String {
			return
		}
		if n := pageOf(f.S); n != "" {
			items = append(items, o)
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	if listKey == "" {
		add(sc.Obj)
	} else if list, ok := sc.Obj.Get(listKey); ok && list.Kind == pyjson.Array {
		for _, it := range list.Arr {
			if it.Kind == pyjson.Object {
				add(it.Obj)
			}
		}
	}
	fr := v.pageFreshness(names)
	if fr == nil {
		return
	}
	for _, o := range items {
		f, _ := o.Get(fileKey)
		if val, ok := fr[pageOf(f.S)]; ok {
			o.Set("freshness", val)
		}
	}
	res.StructuredContent = json.RawMessage(pyjson.Compact(sc))
}

// pageName is the page name of a path in pages/ (absolute, as the engine
// reports a page, or workspace-relative, as search and find do, with OS
// or slash separators); "" for anything else.
func (v *vaultServer) pageName(p string) string {
	p = filepath.ToSlash(p)
	dir, name := path.Split(p)
	pages := filepath.ToSlash(v.eng().WS.Pages) + "/"
	if (dir == pages || dir == freshness.PagesDir+"/") && path.Ext(name) == ".md" {
		return name
	}
	return ""
}

// enrichList is a tool's enrich: page freshness on the result (listKey
// "") or on each item of its listKey array, for the page fileKey names.
func (v *vaultServer) enrichList(listKey, fileKey string) func(*mcp.CallToolResult) {
	return func(res *mcp.CallToolResult) { v.withFreshness(res, listKey, fileKey, v.pageName) }
}
