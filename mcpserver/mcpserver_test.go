package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestValidateMessages pins the ecc-conformance §17.5 problem lists, including the examples
// the conformance document gives.
func TestValidateMessages(t *testing.T) {
	long := strings.Repeat("x", 201)
	cases := []struct {
		schema, args, want string
	}{
		{memorySaveSchema, `{"title":"t","body":"b"}`, ""},
		{memorySaveSchema, `{"title":"t","body":"b","extra":1}`, "/ additionalProperties"},
		{memorySaveSchema, `{"title":"t"}`, "/ required"},
		{memorySaveSchema, `{"title":"` + long + `","body":"b","tags":["Bad","Bad"]}`, "/title maxLength, /tags/0 pattern, /tags/1 pattern"},
		{memorySaveSchema, `{"title":"t","body":"b","tags":["a","a"]}`, "/tags uniqueItems"},
		{memorySaveSchema, `{"title":"","body":7}`, "/title minLength, /body type"},
		{memorySaveSchema, `{"title":"t","body":"b","kind":"memo"}`, "/kind enum"},
		{memorySaveSchema, `{"title":"t","body":"b","targetHarnesses":[]}`, "/targetHarnesses minItems"},
		{memorySearchSchema, `{"limit":0}`, "/limit minimum"},
		{memorySearchSchema, `{"limit":101}`, "/limit maximum"},
		{memorySearchSchema, `{"limit":"5"}`, "/limit type"},
		{memorySearchSchema, `{"limit":2.0}`, ""}, // JSON Schema integers include 2.0
		{memorySearchSchema, `{"limit":2.5}`, "/limit type"},
		{memorySearchSchema, `{"scopes":["user","user","x"]}`, "/scopes/2 enum, /scopes uniqueItems"},
		{memoryReadSchema, `{"id":"mem_ok1"}`, ""},
		{memoryReadSchema, `{"id":" mem_ok1"}`, "/id pattern"}, // patterns see the raw value
		{echoesEndSchema, `{"confirmExplicitUserEnd":true,"dailySummary":"s","pages":[{"filename":"a"}]}`, "/pages/0 required"},
		{echoesEndSchema, `{"dailySummary":"s"}`, "/ required"},
		{echoesUpsertSchema, `{"filename":"a","content":"c","expectedSha256":"ABC"}`, "/expectedSha256 pattern"},
		// Pointer escaping of odd property names.
		{`{"type":"object","additionalProperties":false,"properties":{"a/b":{"type":"string"}}}`, `{"a/b":1}`, "/a~1b type"},
	}
	for _, c := range cases {
		s := testenv.MustDecode(t, pyjson.Decode, c.schema)
		if err := checkSchema(s); err != nil {
			t.Fatalf("schema: %v", err)
		}
		var ps []schemaProblem
		validate(s, testenv.MustDecode(t, pyjson.Decode, c.args), "", &ps)
		if got := describeProblems(ps); got != c.want {
			t.Errorf("%s: got %q, want %q", c.args, got, c.want)
		}
	}
}

// TestCheckSchemaRefusesUnknownKeywords: a keyword the interpreter does not
// implement would silently accept anything, so the server refuses to start.
func TestCheckSchemaRefusesUnknownKeywords(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","format":"email"}}}`,
		`{"type":"object","oneOf":[]}`,
		`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`,
	} {
		if err := checkSchema(testenv.MustDecode(t, pyjson.Decode, s)); err == nil {
			t.Errorf("%s: accepted", s)
		}
	}
}

// TestToolArguments covers ecc-conformance §17.5 step 1 and the identity pre-check.
func TestToolArguments(t *testing.T) {
	cfg := &Config{Memory: true, Harness: "claude", MaxOutput: DefaultMaxOutput}
	tools := memoryTools(cfg)
	save := tools[0]
	save.schema = testenv.MustDecode(t, pyjson.Decode, memorySaveSchema)
	for raw, want := range map[string]string{
		`[1]`:                             "Invalid arguments for memory_save.",
		`"x"`:                             "Invalid arguments for memory_save.",
		`{"title":"t","tags":["\ud800"]}`: "Invalid arguments for memory_save: / required, /tags/0 pattern.", // lone surrogate, outside title and body
		`{}`:                              "Invalid arguments for memory_save: / required, / required.",
		`{"title":"t","body":"b","sourceHarness":"codex"}`:   "Invalid arguments for memory_save: / additionalProperties.",
		`{"targetHarness":"codex","query":1}`:                "Invalid arguments for memory_save: / required, / required, / additionalProperties.",
		`{"title":"t","body":"b","source_harness":"claude"}`: "Invalid arguments for memory_save: / additionalProperties.",
	} {
		_, _, err := save.arguments([]byte(raw))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", raw, err, want)
		}
	}
	if args, _, err := save.arguments(nil); err == nil || args != nil {
		t.Errorf("missing arguments count as {} and then miss required fields: %v", err)
	}
	// memory_save takes a lone surrogate in the title or body through to
	// its run, flagged, which refuses it as a tool error (ecc-conformance §7.1);
	// the other tools refuse it at decoding.
	if args, lone, err := save.arguments([]byte(`{"title":"t\ud800","body":"b\udc00"}`)); err != nil || !lone || args == nil {
		t.Errorf("memory_save with lone surrogates: lone %v, err %v", lone, err)
	}
	if _, lone, err := save.arguments([]byte(`{"title":"t","body":"b"}`)); err != nil || lone {
		t.Errorf("memory_save without lone surrogates: lone %v, err %v", lone, err)
	}
	search := tools[1]
	search.schema = testenv.MustDecode(t, pyjson.Decode, memorySearchSchema)
	if _, _, err := search.arguments([]byte(`{"query":"\ud800"}`)); err == nil || !strings.Contains(err.Error(), "Invalid arguments for memory_search.") {
		t.Errorf("memory_search with a lone surrogate: %v", err)
	}
}

func TestFitItems(t *testing.T) {
	render := func(k int) string { return strings.Repeat("ab", k) + "|" }
	text, kept, ok := fitItems(10, 9, render)
	if !ok || kept != 4 || text != "abababab|" {
		t.Errorf("got %q %d %v", text, kept, ok)
	}
	if _, kept, ok := fitItems(3, 100, render); !ok || kept != 3 {
		t.Errorf("everything fits: kept %d", kept)
	}
	if _, _, ok := fitItems(3, 0, render); ok {
		t.Error("nothing fits but ok")
	}
}

func TestTruncateLines(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&b, "line %03d\n", i)
	}
	text := b.String()
	if got := truncateLines(text, len(text)); got != text {
		t.Error("text that fits was changed")
	}
	got := truncateLines(text, 300)
	if chars(got) > 300 {
		t.Fatalf("over the limit: %d", chars(got))
	}
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	note := lines[len(lines)-1]
	if !strings.HasPrefix(note, "[output truncated: ") || !strings.Contains(note, " of 100 lines shown") {
		t.Errorf("note: %q", note)
	}
	for i, l := range lines[:len(lines)-1] {
		if l != fmt.Sprintf("line %03d", i+1) {
			t.Fatalf("line %d cut or reordered: %q", i, l)
		}
	}
	if got := truncateLines(text, 20); chars(got) > 20 {
		t.Errorf("a limit below the note still bounds the output: %q", got)
	}
}

func TestCheckHarness(t *testing.T) {
	for h, ok := range map[string]bool{"claude": true, "codex-2.1_x": true, "all": true, "": false, "Claude": false, " claude": false, "claude\n": false, "-x": false} {
		if err := CheckHarness(h); (err == nil) != ok {
			t.Errorf("%q: %v", h, err)
		}
	}
}

// TestMemoryErrors pins the ecc-conformance §17.6 mapping: fixed messages (the core's may
// hold paths), MEMORY_READ_INCOMPLETE for reads only, secrets renamed.
func TestMemoryErrors(t *testing.T) {
	cases := []struct {
		tool string
		err  error
		code string
		msg  string
	}{
		{"memory_read", &memory.Error{Code: memory.CodeIncomplete, Message: memory.IncompleteMessage}, "MEMORY_READ_INCOMPLETE", memory.IncompleteMessage},
		{"memory_search", &memory.Error{Code: memory.CodeIncomplete, Message: "x"}, "MEMORY_SEARCH_FAILED", "Memory search failed validation."},
		{"memory_read", &memory.Error{Code: memory.CodeNotFound, Message: "Memory not found in /home/u/.ecc"}, "MEMORY_READ_FAILED", "Memory could not be read. It may be missing, not visible, or invalid."},
		{"memory_save", &memory.Error{Code: memory.CodeSecret, Message: "Refusing to save a suspected secret: AWS key"}, "MEMORY_WRITE_REJECTED", "Memory operation rejected a suspected secret."},
		{"memory_doctor", errors.New("boom /secret/path"), "MEMORY_DOCTOR_FAILED", "Memory doctor could not inspect the authorized vault."},
	}
	for _, c := range cases {
		res := memoryError(c.tool, c.err)
		want := "{\n  \"error\": {\n    \"code\": \"" + c.code + "\",\n    \"message\": \"" + c.msg + "\"\n  }\n}"
		if !res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: not a tool error", c.tool)
		}
		if got := textOf(res); got != want {
			t.Errorf("%s: got %s, want %s", c.tool, got, want)
		}
	}
}

func TestVaultErrorIsOneLine(t *testing.T) {
	res := vaultError(errors.New("first\nsecond"))
	if got := textOf(res); got != `{"ok": false, "error": "first second"}` || !res.IsError {
		t.Errorf("got %s", got)
	}
}

func textOf(res *mcp.CallToolResult) string {
	if len(res.Content) != 1 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// TestMemoryOutputBoundIsTheReferences: without an explicit --max-output,
// memory results are bounded as ecc-conformance §17.6 has it (1048576 UTF-8 bytes, then
// -32001), so a valid memory the reference returns (a body up to 65536
// bytes) is readable, and search returns every result it ranked.
func TestMemoryOutputBoundIsTheReferences(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return dir
		}
		return ""
	}
	cfg := &Config{Memory: true, Harness: "claude", MaxOutput: DefaultMaxOutput, MemoryCwd: dir, Getenv: getenv}
	r, err := memory.ResolveRoots(memory.RootOptions{Cwd: dir, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for i := 0; i < 20; i++ {
		res, err := memory.Save(r, memory.SaveInput{Title: fmt.Sprintf("Rotation %d", i), Body: strings.Repeat("rotation ", 7000)})
		if err != nil {
			t.Fatal(err)
		}
		id = res.Memory.ID
	}
	m := &memoryServer{cfg}
	res, err := m.read(context.Background(), testenv.MustDecode(t, pyjson.Decode, `{"id":"`+id+`"}`).Obj)
	if err != nil || res.IsError || !strings.Contains(textOf(res), `"backlinksTruncated": false`+"\n}") {
		t.Fatalf("read of a valid 63 KB memory: %v %v", err, res)
	}
	res, err = m.search(context.Background(), testenv.MustDecode(t, pyjson.Decode, `{"query":"rotation"}`).Obj)
	if err != nil || res.IsError || strings.Contains(textOf(res), "outputTruncated") || strings.Count(textOf(res), `"score": `) != 20 {
		t.Fatalf("search: %v %.300s", err, textOf(res))
	}
}
