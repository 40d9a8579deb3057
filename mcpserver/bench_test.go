package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/fswatch"
	"github.com/git-echoes/git-echoes/internal/vaultgen"
)

// BenchmarkWarmCall measures a warm tools/call of the server as `git
// echoes mcp` runs it (the real line transport over a pipe, a watcher
// behind the memo), the in-process counterpart of tools/mcpbench (issue
// 19). GIT_ECHOES_MCPBENCH_DIR names a workspace tools/mcpbench prepared
// (5,000 pages + 4,990 memories); without it a smaller one is generated.
//
//	go test ./mcpserver -run '^$' -bench WarmCall -cpuprofile cpu.out
func BenchmarkWarmCall(b *testing.B) {
	dir := os.Getenv("GIT_ECHOES_MCPBENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
		spec := vaultgen.Default
		spec.Pages, spec.DailyLogs = 500, 5
		if err := vaultgen.Write(dir, spec); err != nil {
			b.Fatal(err)
		}
		r, err := memory.ResolveRoots(memory.RootOptions{Cwd: dir, Home: filepath.Join(dir, ".home"), Getenv: func(string) string { return "" }})
		if err != nil {
			b.Fatal(err)
		}
		if err := vaultgen.WriteMemories(r.ScopeRoot("project"), 500, 1); err != nil {
			b.Fatal(err)
		}
		time.Sleep(2100 * time.Millisecond) // past the caches' racy granule
	}
	b.Setenv("HOME", filepath.Join(dir, ".home"))
	eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		b.Fatal(err)
	}
	eng.KeepPageTexts(0)
	w := fswatch.New(fswatch.Options{})
	stats := &MemoStats{}
	defer w.Close()
	s, err := New(Config{Engine: eng, Memory: true, Harness: "bench", MemoryCwd: dir,
		Getenv: func(k string) string {
			if k == "HOME" {
				return filepath.Join(dir, ".home")
			}
			return ""
		}, Watcher: w, Stats: stats})
	if err != nil {
		b.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _ = Serve(context.Background(), s, inR, outW, 0); _ = outW.Close() }()
	defer inW.Close()
	out := bufio.NewReaderSize(outR, 1<<20)
	id := 0
	call := func(method string, params any) json.RawMessage {
		id++
		data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := inW.Write(append(data, '\n')); err != nil {
			b.Fatal(err)
		}
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				b.Fatal(err)
			}
			var resp struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(line, &resp); err != nil || resp.ID == nil || *resp.ID != id {
				continue
			}
			if resp.Error != nil || strings.Contains(string(resp.Result), `"isError":true`) {
				b.Fatalf("%s: %s %.300s", method, resp.Error, resp.Result)
			}
			return resp.Result
		}
	}
	call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}})
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	_, _ = inW.Write(append(data, '\n'))

	r, err := memory.ResolveRoots(memory.RootOptions{Cwd: dir, Home: filepath.Join(dir, ".home"), Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	_ = filepath.WalkDir(r.ScopeRoot("project"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "mem_") && strings.HasSuffix(d.Name(), ".md") {
			ids = append(ids, strings.TrimSuffix(d.Name(), ".md"))
		}
		return err
	})
	if len(ids) == 0 {
		b.Fatal("no memories")
	}
	for _, t := range []struct {
		name string
		args func(i int) map[string]any
	}{
		{"echoes_search", func(int) map[string]any { return map[string]any{"query": "no-such-phrase-anywhere"} }},
		{"echoes_find", func(int) map[string]any { return map[string]any{"query": "retry budget boundary"} }},
		{"memory_search", func(int) map[string]any { return map[string]any{"query": "retry budget boundary"} }},
		{"memory_read", func(i int) map[string]any { return map[string]any{"id": ids[(i*7919)%len(ids)]} }},
	} {
		b.Run(t.name, func(b *testing.B) {
			call("tools/call", map[string]any{"name": t.name, "arguments": t.args(0)}) // the cold call
			b.ResetTimer()
			for i := range b.N {
				call("tools/call", map[string]any{"name": t.name, "arguments": t.args(i)})
			}
			b.StopTimer()
			b.Logf("%s; %s", stats, w.State())
		})
	}
}
