package importer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
)

// benchGraph is a memory.jsonl of n entities, each related to the next.
func benchGraph(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"type":"entity","name":"Entity %d","entityType":"service","observations":["Observation one of %d","Observation two of %d"]}`+"\n", i, i, i)
	}
	for i := 0; i+1 < n; i++ {
		fmt.Fprintf(&b, `{"type":"relation","from":"Entity %d","to":"Entity %d","relationType":"calls"}`+"\n", i, i+1)
	}
	return b.String()
}

// BenchmarkImportMCP500 imports 500 entities into a fresh vault (plan and
// write). Its yardstick is BenchmarkEnd500: the engine's existing
// multi-page writer (end) writing the same 500 pages in one payload.
func BenchmarkImportMCP500(b *testing.B) {
	src := filepath.Join(b.TempDir(), "memory.jsonl")
	writeB(b, src, benchGraph(500))
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		_, eng := newWorkspaceB(b)
		b.StartTimer()
		opt := Options{Source: src, Engine: eng}
		p, err := PlanImport(opt)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Apply(p, opt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEnd500(b *testing.B) {
	src := filepath.Join(b.TempDir(), "memory.jsonl")
	writeB(b, src, benchGraph(500))
	_, eng0 := newWorkspaceB(b)
	p, err := PlanImport(Options{Source: src, Engine: eng0})
	if err != nil {
		b.Fatal(err)
	}
	var pages []map[string]string
	for _, pw := range p.Pages {
		pages = append(pages, map[string]string{"filename": pw.Name, "content": pw.Content})
	}
	payload, _ := json.Marshal(map[string]any{"dailySummary": "- import", "pages": pages})
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		_, eng := newWorkspaceB(b)
		b.StartTimer()
		if _, err := eng.End(func() ([]byte, error) { return payload, nil }, true); err != nil {
			b.Fatal(err)
		}
	}
}

func newWorkspaceB(b *testing.B) (string, *gitvault.Engine) {
	eng, err := gitvault.Open(gitvault.Options{Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := setup.Install(eng, "init"); err != nil {
		b.Fatal(err)
	}
	return eng.WS.Root, eng
}

func writeB(b *testing.B, p, s string) {
	if err := writeFile(p, s); err != nil {
		b.Fatal(err)
	}
}

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }
