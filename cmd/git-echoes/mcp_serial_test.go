package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// TestMCPPipelinedRequestsRunInOrder sends many requests in one write, as a
// pipelining client would: each save is immediately followed by a search
// for it. The server must answer in arrival order and each search must see
// the save before it (ecc-conformance §17.2: one request at a time).
func TestMCPPipelinedRequestsRunInOrder(t *testing.T) {
	e := newMCPEnv(t)
	var in bytes.Buffer
	write := func(v map[string]any) {
		v["jsonrpc"] = "2.0"
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(data, '\n'))
	}
	write(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "pipeline", "version": "1"}}})
	write(map[string]any{"method": "notifications/initialized"})
	const pairs = 15
	for i := 0; i < pairs; i++ {
		word := fmt.Sprintf("pipelineword%02d", i)
		write(map[string]any{"id": 100 + 2*i, "method": "tools/call", "params": map[string]any{
			"name": "memory_save", "arguments": map[string]any{"title": "Note " + word, "body": "About " + word + "."}}})
		write(map[string]any{"id": 101 + 2*i, "method": "tools/call", "params": map[string]any{
			"name": "memory_search", "arguments": map[string]any{"query": word}}})
	}
	cmd := exec.Command(mcpBinary(t), "mcp", "--memory")
	cmd.Dir, cmd.Env = e.repo, e.vars
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mcp: %v", err)
	}
	var ids []int
	results := map[int]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.ID == nil {
			continue
		}
		if msg.Error != nil {
			t.Fatalf("request %d failed: %s", *msg.ID, msg.Error)
		}
		ids = append(ids, *msg.ID)
		results[*msg.ID] = string(msg.Result)
	}
	if len(ids) != 1+2*pairs {
		t.Fatalf("got %d responses, want %d: %v", len(ids), 1+2*pairs, ids)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] < ids[i-1] {
			t.Fatalf("responses out of order: %v", ids)
		}
	}
	for i := 0; i < pairs; i++ {
		word := fmt.Sprintf("pipelineword%02d", i)
		if res := results[101+2*i]; !strings.Contains(res, "Note "+word) {
			t.Errorf("search for %s did not see the save before it: %s", word, res)
		}
	}
}
