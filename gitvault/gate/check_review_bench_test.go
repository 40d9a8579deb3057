package gate

import (
	"fmt"
	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// BenchmarkCheck10kLinkedPages runs the gate on a 10,000-page vault whose
// pages link to each other and embed assets, with 300 daily entries and
// 500 committed team memories that link to each other: the review rules
// (credentials, wikilinks, team memories) on top of the page checks. It
// uses only the Check API, so it also runs on the code before those rules.
func BenchmarkCheck10kLinkedPages(b *testing.B) {
	sb := gitrepotest.New(b)
	dir := sb.Init(filepath.Join(b.TempDir(), "repo"))
	e, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := setup.Install(e, "init"); err != nil {
		b.Fatal(err)
	}
	const pages = 10_000
	for i := range pages {
		testenv.WriteFile(b, filepath.Join(dir, fmt.Sprintf("EchoesVault/pages/page-%05d.md", i)),
			fmt.Sprintf("---\ntype: note\nstack: go\nstatus: active\nsummary: Page %d of the benchmark vault.\n---\n# Page %d\n\n"+
				"Related: [[page-%05d]], [[page-%05d|the next one]] and ![[diagram-%03d.png]].\n\n%s\n```\n[[not-a-link]]\n```\n",
				i, i, (i+7)%pages, (i+1)%pages, i%100, benchBody))
	}
	for i := range 100 {
		testenv.WriteFile(b, filepath.Join(dir, fmt.Sprintf("EchoesVault/assets/diagram-%03d.png", i)), "png")
	}
	for i := range 300 {
		testenv.WriteFile(b, filepath.Join(dir, fmt.Sprintf("EchoesVault/daily/2026-01-%02d/entry-%03d.md", i%28+1, i)),
			fmt.Sprintf("### Session\n\nAgent: `bench`\n\nTouched [[page-%05d]].\n", i*3))
	}
	for i := range 500 {
		id := fmt.Sprintf("mem_bench%04d", i)
		next := fmt.Sprintf("mem_bench%04d", (i+1)%500)
		doc := "---\nschema: \"ecc.memory.v1\"\nid: \"" + id + "\"\ntitle: \"Memory " + id + "\"\nkind: \"note\"\nscope: \"team\"\n" +
			"trust: \"unreviewed\"\nstatus: \"active\"\nsource_harness: \"codex\"\ntarget_harnesses: [\"all\"]\ntags: [\"bench\"]\n" +
			"links: [\"" + next + "\"]\ncreated_at: \"2026-07-26T20:00:00.000Z\"\nupdated_at: \"2026-07-26T20:00:00.000Z\"\n---\n\n" +
			strings.Repeat("A remembered fact about the project. ", 8) + "\n"
		testenv.WriteFile(b, filepath.Join(dir, ".ecc/memory/team/notes/"+id+".md"), doc)
	}
	sb.Git(dir, "add", "-A")
	sb.Git(dir, "commit", "-qm", "large")
	for _, src := range []CheckSource{CheckWorkTree, CheckStaged, CheckRev} {
		if res, err := Check(e, CheckOptions{Source: src, Rev: "HEAD"}); err != nil || len(res.Findings) != 0 || res.Pages != pages {
			b.Fatalf("%v: %+v %v", src, res, err)
		}
	}
	for _, src := range []CheckSource{CheckWorkTree, CheckStaged, CheckRev} {
		b.Run(src.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := Check(e, CheckOptions{Source: src, Rev: "HEAD"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
