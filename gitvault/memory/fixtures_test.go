package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/jsjson"
)

// fixtureRoots points the project vault at a hand-written fixture vault in
// the reference's exact format.
func fixtureRoots(t *testing.T, name string) *Roots {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	r, err := ResolveRoots(RootOptions{Cwd: home, Getenv: func(k string) string {
		switch k {
		case "HOME":
			return home
		case "ECC_MEMORY_PROJECT_ROOT":
			return abs
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMemoryReferenceFixturesCrossRead(t *testing.T) {
	r := fixtureRoots(t, "reference")
	res, err := Read(r, "mem_20260726_01k123example", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != "project:handoffs/mem_20260726_01k123example.md" || res.Memory.Body != workedExample().Body ||
		len(res.Backlinks) != 0 {
		t.Fatalf("%+v", res)
	}
	// The superseded note links here but is not active: no backlink. It is
	// still readable, and its escapes decode.
	old, err := Read(r, "mem_20260720_oldplan", ReadOptions{})
	if err != nil || old.Memory.Title != "Old plan été 😀" || old.Path != "project:notes/2026/superseded-plan.md" {
		t.Fatalf("%+v %v", old, err)
	}
	// BOM + CRLF + spaced arrays (the design document's form) are accepted.
	older, err := Read(r, "mem_20260725_01kolder", ReadOptions{})
	if err != nil || strings.Join(older.Memory.TargetHarnesses, ",") != "codex,claude" ||
		older.Memory.Body != "Tokens rotate every 24 hours.\r\nThe signing key lives in the KMS." {
		t.Fatalf("%+v %v", older, err)
	}
	if len(older.Backlinks) != 1 || older.Backlinks[0].ID != "mem_20260726_01k123example" {
		t.Fatalf("backlinks: %+v", older.Backlinks)
	}
	s, err := Search(r, SearchOptions{Query: "token rotation"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Results) != 2 || s.Results[0].Memory.ID != "mem_20260725_01kolder" || s.Diagnostics.InvalidFileCount != 0 {
		t.Fatalf("search: %s", jsjson.MarshalCompact(s.JSON()))
	}
	d, err := Doctor(r, DoctorOptions{})
	if err != nil || !d.OK || d.MemoryCount != 3 {
		t.Fatalf("doctor: %s %v", jsjson.MarshalCompact(d.JSON()), err)
	}
	// What we write for the worked example is the fixture, byte for byte.
	fixture, err := os.ReadFile(filepath.Join("testdata", "reference", "project", "handoffs", "mem_20260726_01k123example.md"))
	if err != nil || string(fixture) != string(res.Memory.Serialize()) {
		t.Fatalf("re-serialization differs from the reference bytes: %v", err)
	}
}

func TestMemoryBrokenFixturesDoctor(t *testing.T) {
	r := fixtureRoots(t, "broken")
	d, err := Doctor(r, DoctorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schemaVersion":"ecc.memory.doctor.v1","ok":false,"memoryCount":1,` +
		`"invalidFiles":[{"path":"project:notes/blank-line.md","code":"invalid-document","message":"Memory document is invalid or unreadable."},` +
		`{"path":"project:notes/wrong-scope.md","code":"location-mismatch","message":"Memory metadata does not match its vault location."},` +
		`{"path":"team:decisions/quarantined.md","code":"suspected-secret","message":"Memory document was quarantined."}],"invalidFileCount":3,` +
		`"duplicateIds":[],"duplicateIdCount":0,` +
		`"brokenLinks":[{"sourceId":"mem_valid_decision","targetId":"mem_nowhere_3","path":"team:decisions/valid.md"}],"brokenLinkCount":1,` +
		`"skippedSymlinks":[],"skippedSymlinkCount":0,"scannedBytes":`
	got := jsjson.MarshalCompact(d.JSON())
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, `,"truncated":false,"diagnosticsTruncated":false}`) {
		t.Fatalf("doctor report:\n%s", got)
	}
	if strings.Contains(got, "AKIA") {
		t.Fatal("a secret leaked into diagnostics")
	}
	if _, err := Read(r, "mem_valid_decision", ReadOptions{}); ErrorCode(err) != CodeIncomplete {
		t.Fatalf("read over invalid files must be incomplete: %v", err)
	}
	s, err := Search(r, SearchOptions{})
	if err != nil || len(s.Results) != 0 || s.Diagnostics.InvalidFileCount != 3 {
		t.Fatalf("search: %v %+v", err, s)
	}
}
