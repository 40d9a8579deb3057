package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectAt starts `git echoes mcp args...` like connect, with the SDK's
// client asking for protocol revision version ("" is the SDK's newest,
// 2026-07-28, which probes with server/discover and needs no handshake).
func connectAt(t *testing.T, dir string, env []string, version string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(mcpBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	client := mcp.NewClient(&mcp.Implementation{Name: "git-echoes-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect at %q: %v", version, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func hasResourceLink(res *mcp.CallToolResult, uri string) bool {
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok && l.URI == uri {
			return true
		}
	}
	return false
}

// TestMCPProtocolRevisions: the real binary serves the SDK's client at the
// oldest revision, at 2025-06-18 and at the newest (2026-07-28, no
// initialize handshake), with every capability; resource links appear
// only from 2025-06-18 on, where MCP defines them.
func TestMCPProtocolRevisions(t *testing.T) {
	e := newMCPEnv(t)
	for _, version := range []string{"2024-11-05", "2025-06-18", ""} {
		t.Run("v"+version, func(t *testing.T) {
			s := connectAt(t, e.repo, e.vars, version)
			want := version
			if want == "" {
				want = "2026-07-28"
			}
			if got := s.InitializeResult().ProtocolVersion; got != want {
				t.Fatalf("negotiated %s, want %s", got, want)
			}
			ctx := context.Background()
			tools, err := s.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != 15 {
				t.Fatalf("tools/list: %v %v", err, tools)
			}
			saved := decodeJSON(t, ok(t, s, "memory_save", map[string]any{"title": "Revision " + want, "body": "revision note"}))
			id := saved["memory"].(map[string]any)["id"].(string)
			res, err := call(t, s, "memory_search", map[string]any{"query": "revision " + want})
			if err != nil || res.IsError || !strings.Contains(resultText(res), id) {
				t.Fatalf("memory_search: %v %v", err, res)
			}
			if links := hasResourceLink(res, "ecc-memory://"+id); links != (want >= "2025-06-18") {
				t.Errorf("resource link in the search result: %v at %s", links, want)
			}
			if res.StructuredContent == nil {
				t.Error("no structuredContent")
			}
			if _, err := s.ListResourceTemplates(ctx, nil); err != nil {
				t.Errorf("resources/templates/list: %v", err)
			}
			read, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ecc-memory://" + id})
			if err != nil || !strings.Contains(read.Contents[0].Text, "revision note") {
				t.Errorf("resources/read: %v %v", err, read)
			}
			if _, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "echoes-start"}); err != nil {
				t.Errorf("prompts/get: %v", err)
			}
		})
	}
}

// TestMCPSubscriptionListen: a 2026-07-28 client that wants list-changed
// notifications keeps a subscriptions/listen call open for the whole
// session; the one-request-at-a-time rule must not wait for its answer.
func TestMCPSubscriptionListen(t *testing.T) {
	e := newMCPEnv(t)
	cmd := exec.Command(mcpBinary(t), "mcp", "--memory")
	cmd.Dir, cmd.Env = e.repo, e.vars
	client := mcp.NewClient(&mcp.Implementation{Name: "git-echoes-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer s.Close()
	if v := s.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "memory_doctor", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("a call beside the open subscription: %v %v", err, res)
	}
}

// TestMCPToolsOrderAndSchemas: the tool list is in one fixed order (by
// name), and every tool declares an outputSchema.
func TestMCPToolsOrderAndSchemas(t *testing.T) {
	e := newMCPEnv(t)
	s := e.serve(t, serveOpts{})
	var names []string
	for range 2 {
		res, err := s.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		names = names[:0]
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			if tool.OutputSchema == nil {
				t.Errorf("%s: no outputSchema", tool.Name)
			}
		}
	}
	want := "echoes_append,echoes_diff,echoes_end,echoes_find,echoes_log,echoes_read_page,echoes_search,echoes_stale,echoes_start,echoes_status,echoes_upsert_page," +
		"memory_doctor,memory_read,memory_save,memory_search"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("tool order:\n got %s\nwant %s", got, want)
	}
}

// TestMCPStructuredResults: every successful result carries
// structuredContent that is its text's JSON object (or {"text": text} for
// Markdown) and validates against the tool's outputSchema with a standard
// JSON Schema validator; tool errors carry none.
//
// The echoes_* results that name pages add each page's freshness (issue
// 18) to structuredContent only: without it, the structured content is
// the text's object exactly (the texts are unchanged), and with a commit
// in the repository, read_page, upsert, search and find carry it.
func TestMCPStructuredResults(t *testing.T) {
	e := newMCPEnv(t)
	e.git.Setenv(t)
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-qm", "vault"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = e.repo, e.vars
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	withFreshness := map[string]bool{}
	for _, opts := range []serveOpts{{}, {maxOutput: 600}} {
		s := e.serve(t, opts)
		tools, err := s.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		schemas := map[string]*jsonschema.Resolved{}
		for _, tool := range tools.Tools {
			data, _ := json.Marshal(tool.OutputSchema)
			var sch jsonschema.Schema
			if err := json.Unmarshal(data, &sch); err != nil {
				t.Fatalf("%s: outputSchema: %v", tool.Name, err)
			}
			r, err := sch.Resolve(nil)
			if err != nil {
				t.Fatalf("%s: outputSchema does not resolve: %v", tool.Name, err)
			}
			schemas[tool.Name] = r
		}
		var body strings.Builder
		for i := 0; i < 80; i++ {
			body.WriteString("structured line\n")
		}
		check := func(name string, args any) *mcp.CallToolResult {
			t.Helper()
			res, err := call(t, s, name, args)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			text := resultText(res)
			if res.IsError {
				if res.StructuredContent != nil {
					t.Errorf("%s: tool error with structuredContent", name)
				}
				return res
			}
			var got, want any
			data, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("%s: structuredContent: %v", name, err)
			}
			if json.Unmarshal([]byte(text), &want) != nil || !strings.HasPrefix(text, "{") {
				want = map[string]any{"text": text}
			}
			if stripFreshness(got) {
				withFreshness[name] = true
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: structuredContent is not the text's object:\n%s\n%s", name, data, text)
			}
			if err := schemas[name].Validate(got); err != nil {
				t.Errorf("%s: structuredContent does not validate against outputSchema: %v\n%s", name, err, data)
			}
			return res
		}
		saved := check("memory_save", map[string]any{"title": "Structured", "body": "structured body"})
		id := memIDRe.FindStringSubmatch(resultText(saved))
		check("memory_search", map[string]any{"query": "structured"})
		check("memory_doctor", map[string]any{})
		if id != nil {
			check("memory_read", map[string]any{"id": id[1]})
		}
		check("echoes_status", map[string]any{})
		check("echoes_status", map[string]any{"format": "card"})
		check("echoes_start", map[string]any{})
		up := check("echoes_upsert_page", map[string]any{"filename": "structured" + strings.Repeat("x", opts.maxOutput/100), "content": echoesPage("Structured", body.String())})
		check("echoes_read_page", map[string]any{"filename": "structured" + strings.Repeat("x", opts.maxOutput/100)})
		check("echoes_search", map[string]any{"query": "structured line"})
		check("echoes_find", map[string]any{"query": "structured line"})
		check("echoes_stale", map[string]any{})
		check("echoes_append", map[string]any{"entry": "structured note"})
		check("echoes_end", map[string]any{"confirmExplicitUserEnd": true, "dailySummary": "Structured.", "pages": []any{}})
		check("memory_read", map[string]any{"id": "mem_missing"}) // a tool error
		if up.IsError {
			t.Errorf("upsert: %s", resultText(up))
		}
	}
	for _, name := range []string{"echoes_upsert_page", "echoes_read_page", "echoes_search", "echoes_find"} {
		if !withFreshness[name] {
			t.Errorf("%s: no freshness in structuredContent", name)
		}
	}
}

// stripFreshness removes the page freshness fields from a structured
// result (at its top level and in the items of results and hits) and
// reports whether it had any.
func stripFreshness(v any) bool {
	o, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, had := o["freshness"]
	delete(o, "freshness")
	for _, key := range []string{"results", "hits"} {
		list, _ := o[key].([]any)
		for _, it := range list {
			if m, ok := it.(map[string]any); ok {
				if _, ok := m["freshness"]; ok {
					had = true
					delete(m, "freshness")
				}
			}
		}
	}
	return had
}

// TestMCPEmptyScopes: "scopes": [] names no scope, so memory_search and
// memory_doctor scan nothing (the reference's answer), not the defaults.
func TestMCPEmptyScopes(t *testing.T) {
	e := newMCPEnv(t)
	s := e.serve(t, serveOpts{memory: true})
	ok(t, s, "memory_save", map[string]any{"title": "Scoped", "body": "scoped note"})
	if found := decodeJSON(t, ok(t, s, "memory_search", map[string]any{"query": "scoped"})); len(found["results"].([]any)) != 1 {
		t.Fatalf("default scopes: %v", found)
	}
	found := decodeJSON(t, ok(t, s, "memory_search", map[string]any{"query": "scoped", "scopes": []string{}}))
	diag := found["diagnostics"].(map[string]any)
	if len(found["results"].([]any)) != 0 || diag["scannedBytes"] != 0.0 {
		t.Errorf("scopes []: %v", found)
	}
	doctor := decodeJSON(t, ok(t, s, "memory_doctor", map[string]any{"scopes": []string{}}))
	if doctor["memoryCount"] != 0.0 || doctor["scannedBytes"] != 0.0 || doctor["ok"] != true {
		t.Errorf("doctor scopes []: %v", doctor)
	}
	if doctor := decodeJSON(t, ok(t, s, "memory_doctor", map[string]any{})); doctor["memoryCount"] != 1.0 {
		t.Errorf("doctor default scopes: %v", doctor)
	}
}

// TestMCPLoneSurrogateSave: a lone surrogate escape in memory_save's title
// or body is the MEMORY_WRITE_REJECTED tool error, like any rejected save,
// and nothing is written; the schema and the user-scope rule still come
// first, and other tools still refuse it at decoding.
func TestMCPLoneSurrogateSave(t *testing.T) {
	e := newMCPEnv(t)
	save := func(id int, args string) string {
		return `{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"tools/call","params":{"name":"memory_save","arguments":` + args + `}}` + "\n"
	}
	input := handshake(t, "2025-06-18") +
		save(1, `{"title":"bad \ud800 title","body":"b"}`) +
		save(2, `{"title":"t","body":"lone \udc00 body"}`) +
		save(3, `{"title":"\ud800","body":"b","scope":"user"}`) +
		save(4, `{"title":"\ud800"}`) +
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"\ud800"}}}` + "\n" +
		save(6, `{"title":"fine \ud83d\ude00","body":"a pair is fine"}`)
	answers, code, stderr := runRaw(t, e, strings.NewReader(input), "--memory")
	if code != 0 || len(answers) != 7 {
		t.Fatalf("exit %d, %v\n%s", code, answers, stderr)
	}
	for _, a := range answers[1:3] {
		var res mcp.CallToolResult
		if a.Error != nil || json.Unmarshal(a.Result, &res) != nil || !res.IsError ||
			!strings.Contains(resultText(&res), `"MEMORY_WRITE_REJECTED"`) {
			t.Errorf("lone surrogate save: %s", a.Raw)
		}
	}
	if a := answers[3]; a.code() != -32602 || !strings.Contains(a.Error.Message, "user memory scope is disabled") {
		t.Errorf("user scope first: %s", a.Raw)
	}
	if a := answers[4]; a.code() != -32602 || !strings.Contains(a.Error.Message, "/ required") {
		t.Errorf("schema first: %s", a.Raw)
	}
	if a := answers[5]; a.code() != -32602 || a.Error.Message != "Invalid arguments for memory_search." {
		t.Errorf("search: %s", a.Raw)
	}
	if a := answers[6]; a.Error != nil || strings.Contains(string(a.Result), `"isError":true`) {
		t.Errorf("a surrogate pair: %s", a.Raw)
	}
	notes, _ := os.ReadDir(filepath.Join(e.repo, ".ecc", "memory", "project", "notes"))
	if len(notes) != 1 {
		t.Errorf("want only the valid save written, got %d files", len(notes))
	}
}

// TestMCPResources: pages, daily entries and memories are listed and
// readable as resources; a memory is readable exactly where memory_read
// would return it (its target harnesses, and the user scope only when
// allowed and asked for), and search results link what they found.
func TestMCPResources(t *testing.T) {
	e := newMCPEnv(t)
	ctx := context.Background()
	claude := connectAt(t, e.repo, e.with("ECC_MEMORY_HARNESS=claude", "ECC_MEMORY_ALLOW_USER_SCOPE=1"), "2025-06-18")
	ok(t, claude, "echoes_upsert_page", map[string]any{"filename": "auth flow", "content": echoesPage("How login works", "Tokens rotate hourly.\n")})
	app := decodeJSON(t, ok(t, claude, "echoes_append", map[string]any{"entry": "Looked at resources."}))
	daily := filepath.ToSlash(app["dailyLog"].(string))
	daily = daily[strings.Index(daily, "/daily/")+len("/daily/"):]
	forCodex := memIDRe.FindStringSubmatch(ok(t, claude, "memory_save", map[string]any{"title": "For codex", "body": "codex only", "targetHarnesses": []string{"codex"}}))[1]
	forAll := memIDRe.FindStringSubmatch(ok(t, claude, "memory_save", map[string]any{"title": "For all", "body": "everyone"}))[1]
	mine := memIDRe.FindStringSubmatch(ok(t, claude, "memory_save", map[string]any{"title": "Mine", "body": "user note", "scope": "user"}))[1]

	templates, err := claude.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, rt := range templates.ResourceTemplates {
		uris = append(uris, rt.URITemplate)
	}
	if got := strings.Join(uris, " "); got != "ecc-memory://{id}{?scope} echoes://daily/{+entry} echoes://page/{name}" {
		t.Errorf("templates: %s", got)
	}
	listed := func(s *mcp.ClientSession) map[string]bool {
		res, err := s.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for _, r := range res.Resources {
			m[r.URI] = true
		}
		return m
	}
	read := func(s *mcp.ClientSession, uri string) (string, error) {
		res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return "", err
		}
		return res.Contents[0].Text, nil
	}
	pageURI, dailyURI := "echoes://page/auth%20flow.md", "echoes://daily/"+daily
	l := listed(claude)
	for _, u := range []string{pageURI, dailyURI, "ecc-memory://" + forAll} {
		if !l[u] {
			t.Errorf("not listed: %s (%v)", u, l)
		}
	}
	if l["ecc-memory://"+forCodex] || l["ecc-memory://"+mine] {
		t.Errorf("listed a memory not for claude, or the user scope: %v", l)
	}
	if text, err := read(claude, pageURI); err != nil || !strings.Contains(text, "Tokens rotate hourly.") {
		t.Errorf("page: %q %v", text, err)
	}
	if text, err := read(claude, "echoes://page/auth%20flow"); err != nil || !strings.Contains(text, "Tokens rotate hourly.") {
		t.Errorf("page by stem: %q %v", text, err)
	}
	if text, err := read(claude, dailyURI); err != nil || !strings.Contains(text, "Looked at resources.") {
		t.Errorf("daily: %q %v", text, err)
	}
	for _, bad := range []string{"echoes://page/missing", "echoes://page/..%2F..%2Fsecret", "echoes://daily/../pages/auth%20flow.md", "echoes://daily/2020-01-01/none.md"} {
		if _, err := read(claude, bad); err == nil {
			t.Errorf("%s: readable", bad)
		}
	}
	if _, err := read(claude, "ecc-memory://"+forCodex); err == nil {
		t.Error("claude read a memory targeted at codex")
	}
	if text, err := read(claude, "ecc-memory://"+forAll); err != nil || !strings.Contains(text, `"body": "everyone"`) {
		t.Errorf("memory for all: %q %v", text, err)
	}
	if _, err := read(claude, "ecc-memory://"+mine); err == nil {
		t.Error("the user scope was read without ?scope=user")
	}
	if text, err := read(claude, "ecc-memory://"+mine+"?scope=user"); err != nil || !strings.Contains(text, "user note") {
		t.Errorf("user scope with ?scope=user: %q %v", text, err)
	}
	// The same text memory_read returns.
	if text, _ := read(claude, "ecc-memory://"+forAll); text != ok(t, claude, "memory_read", map[string]any{"id": forAll}) {
		t.Error("the memory resource is not memory_read's text")
	}

	codex := connectAt(t, e.repo, e.with("ECC_MEMORY_HARNESS=codex"), "")
	if text, err := read(codex, "ecc-memory://"+forCodex); err != nil || !strings.Contains(text, "codex only") {
		t.Errorf("codex reads its memory: %q %v", text, err)
	}
	if !listed(codex)["ecc-memory://"+forCodex] {
		t.Error("codex's memory is not listed for codex")
	}
	if _, err := read(codex, "ecc-memory://"+mine+"?scope=user"); err == nil || !strings.Contains(err.Error(), "user memory scope is disabled") {
		t.Errorf("user scope without the opt-in: %v", err)
	}
	hermes := connectAt(t, e.repo, e.with("ECC_MEMORY_HARNESS=hermes"), "2025-06-18", "--memory")
	if _, err := read(hermes, "ecc-memory://"+forCodex); err == nil {
		t.Error("hermes read a memory targeted at codex")
	}
	if _, err := read(hermes, pageURI); err == nil {
		t.Error("--memory serves page resources")
	}

	// Search results link what they found.
	res, err := call(t, claude, "echoes_search", map[string]any{"query": "rotate"})
	if err != nil || !hasResourceLink(res, pageURI) {
		t.Errorf("echoes_search links: %v %v", err, res)
	}
	res, err = call(t, claude, "memory_search", map[string]any{"query": "everyone"})
	if err != nil || !hasResourceLink(res, "ecc-memory://"+forAll) {
		t.Errorf("memory_search links: %v %v", err, res)
	}
}

// TestMCPPrompts: the three prompts are listed and got, with the tool set
// they belong to; echoes-end says it finalizes only on the user's explicit
// request.
func TestMCPPrompts(t *testing.T) {
	e := newMCPEnv(t)
	ctx := context.Background()
	names := func(s *mcp.ClientSession) string {
		res, err := s.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, p := range res.Prompts {
			n = append(n, p.Name)
		}
		return strings.Join(n, ",")
	}
	s := connectAt(t, e.repo, e.vars, "2025-06-18")
	if got := names(s); got != "echoes-end,echoes-start,memory-handoff" {
		t.Errorf("prompts: %s", got)
	}
	text := func(name string, args map[string]string) (string, error) {
		res, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			return "", err
		}
		if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
			t.Fatalf("%s: messages %v", name, res.Messages)
		}
		return res.Messages[0].Content.(*mcp.TextContent).Text, nil
	}
	if got, err := text("echoes-start", map[string]string{"focus": "token rotation"}); err != nil ||
		!strings.Contains(got, "echoes_start") || !strings.Contains(got, "token rotation") || !strings.Contains(got, "only when the user explicitly asks") {
		t.Errorf("echoes-start: %q %v", got, err)
	}
	if got, err := text("echoes-end", nil); err != nil || !strings.Contains(got, "only because of that explicit request") ||
		!strings.Contains(got, "do not call echoes_end") || !strings.Contains(got, "confirmExplicitUserEnd: true") {
		t.Errorf("echoes-end: %q %v", got, err)
	}
	if got, err := text("memory-handoff", map[string]string{"target": "codex", "topic": "auth"}); err != nil ||
		!strings.Contains(got, "memory_save") || !strings.Contains(got, `"handoff"`) || !strings.Contains(got, `["codex"]`) {
		t.Errorf("memory-handoff: %q %v", got, err)
	}
	if _, err := text("memory-handoff", map[string]string{"target": "Not A Slug"}); err == nil {
		t.Error("memory-handoff took an invalid target")
	}
	if _, err := text("echoes-end", map[string]string{"nope": "x"}); err == nil {
		t.Error("a prompt took an unknown argument")
	}
	if got := names(connectAt(t, e.repo, e.vars, "2025-06-18", "--memory")); got != "memory-handoff" {
		t.Errorf("--memory prompts: %s", got)
	}
	if got := names(connectAt(t, e.repo, e.with("ECC_MEMORY_HARNESS="), "2025-06-18", "--vault")); got != "echoes-end,echoes-start" {
		t.Errorf("--vault prompts: %s", got)
	}
}

// TestMCPResourcesPaged: resources/list pages through a large vault, 500
// at a time, every page listed once; a bad cursor is refused.
func TestMCPResourcesPaged(t *testing.T) {
	e := newMCPEnv(t)
	pages := filepath.Join(e.repo, "EchoesVault", "pages")
	const n = 1234
	for i := 0; i < n; i++ {
		name := filepath.Join(pages, "page-"+strings.Repeat("0", 4-len(itoa(i)))+itoa(i)+".md")
		if err := os.WriteFile(name, []byte(echoesPage("Page", "body\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := e.serve(t, serveOpts{vault: true})
	ctx := context.Background()
	first, err := s.ListResources(ctx, nil)
	if err != nil || len(first.Resources) != 500 || first.NextCursor != "500" {
		t.Fatalf("first page: %v %d %q", err, len(first.Resources), first.NextCursor)
	}
	seen := map[string]bool{}
	for r, err := range s.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[r.URI] {
			t.Fatalf("listed twice: %s", r.URI)
		}
		seen[r.URI] = true
	}
	if len(seen) != n {
		t.Errorf("listed %d resources, want %d", len(seen), n)
	}
	for _, c := range []string{"x", "-1", "007", "99999"} {
		if _, err := s.ListResources(ctx, &mcp.ListResourcesParams{Cursor: c}); err == nil {
			t.Errorf("cursor %q accepted", c)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
