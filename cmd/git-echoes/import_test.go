package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// serverMemoryHint says how .ci/run installs the official MCP memory server.
const serverMemoryHint = "npm install -g @modelcontextprotocol/server-memory@2026.8.31"

// driveServerMemory runs the real @modelcontextprotocol/server-memory over
// stdio (JSON-RPC 2.0, one message per line) with MEMORY_FILE_PATH set, and
// sends it the calls in order.
func driveServerMemory(t *testing.T, bin, file string, calls []map[string]any) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "MEMORY_FILE_PATH="+file)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	r := bufio.NewReader(stdout)
	send := func(msg map[string]any, reply bool) map[string]any {
		b, _ := json.Marshal(msg)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
		if !reply {
			return nil
		}
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("server-memory: %v (stderr: %s)", err, stderr.String())
		}
		var out map[string]any
		if err := json.Unmarshal(line, &out); err != nil {
			t.Fatalf("server-memory reply %q: %v", line, err)
		}
		if out["error"] != nil {
			t.Fatalf("server-memory error: %v", out["error"])
		}
		return out
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2024-11-05", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "git-echoes-test", "version": "1"}}}, true)
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, false)
	for i, c := range calls {
		res := send(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": c}, true)
		if r, _ := res["result"].(map[string]any); r == nil || r["isError"] == true {
			t.Fatalf("tools/call %v: %v", c["name"], res)
		}
	}
	_ = stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a hung server, not a speed check
		t.Fatal("server-memory did not exit after stdin closed")
	}
}

// TestImportRealServerMemoryRoundTrip imports the memory.jsonl that the
// real MCP memory server writes, and finds every observation and relation
// of it with `git echoes find` afterwards.
func TestImportRealServerMemoryRoundTrip(t *testing.T) {
	bin := needTool(t, "mcp-server-memory", serverMemoryHint)
	g := testenv.TempGit(t)
	g.Setenv(t)
	ws := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--workspace", ws, "init"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("init: %s", stderr.String())
	}
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	entities := []map[string]any{
		{"name": "Payment Service", "entityType": "service", "observations": []string{"Retries webhooks with exponential backoff", "Owned by the billing team"}},
		{"name": "Billing Team", "entityType": "team", "observations": []string{"Meets every Tuesday"}},
		{"name": "Café Ledger", "entityType": "database", "observations": []string{}},
	}
	driveServerMemory(t, bin, file, []map[string]any{
		{"name": "create_entities", "arguments": map[string]any{"entities": entities}},
		{"name": "add_observations", "arguments": map[string]any{"observations": []map[string]any{
			{"entityName": "Café Ledger", "contents": []string{"Stores invoices in PostgreSQL partitions"}}}}},
		{"name": "create_relations", "arguments": map[string]any{"relations": []map[string]any{
			{"from": "Payment Service", "to": "Billing Team", "relationType": "owned_by"},
			{"from": "Payment Service", "to": "Café Ledger", "relationType": "writes_to"}}}},
	})
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the server wrote no memory.jsonl: %v", err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"import", file, "--workspace", ws}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("import: %s", stderr.String())
	}
	var reply importReply
	if err := json.Unmarshal(stdout.Bytes(), &reply); err != nil || !reply.OK || len(reply.Pages) != 3 || reply.From != "mcp-memory" {
		t.Fatalf("reply %s (%v)", stdout.String(), err)
	}
	// Every observation and relation of the source, as the server stored it.
	var queries []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		switch rec["type"] {
		case "entity":
			for _, o := range rec["observations"].([]any) {
				queries = append(queries, `"`+o.(string)+`"`)
			}
		case "relation":
			queries = append(queries, rec["relationType"].(string))
		}
	}
	if len(queries) != 6 {
		t.Fatalf("server file has %d observations and relations, want 6:\n%s", len(queries), data)
	}
	for _, q := range queries {
		stdout.Reset()
		stderr.Reset()
		if code := run([]string{"find", "--workspace", ws, "--format", "json", "--", q}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("find %s: %s", q, stderr.String())
		}
		if !strings.Contains(stdout.String(), "EchoesVault/pages/") {
			t.Errorf("find %s found nothing: %s", q, stdout.String())
		}
	}
	// The relation is a wikilink in both pages, named.
	svc, _ := os.ReadFile(filepath.Join(ws, "EchoesVault", "pages", "Payment Service.md"))
	team, _ := os.ReadFile(filepath.Join(ws, "EchoesVault", "pages", "Billing Team.md"))
	if !strings.Contains(string(svc), "- owned_by [[Billing Team]]") || !strings.Contains(string(team), "- [[Payment Service]] owned_by") {
		t.Fatalf("relation pages:\n%s\n%s", svc, team)
	}
	// The gate accepts what the import wrote.
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"check", "--workspace", ws}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("check after import: %d %s %s", code, stdout.String(), stderr.String())
	}
}
