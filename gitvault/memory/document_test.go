package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/jsjson"
)

// workedExample is the ecc-conformance §5 memory.
func workedExample() *Memory {
	return &Memory{
		Schema: Schema, ID: "mem_20260726_01k123example", Title: "Authentication migration handoff",
		Kind: "handoff", Scope: "project", Trust: "unreviewed", Status: "active", SourceHarness: "codex",
		TargetHarnesses: []string{"claude"}, Tags: []string{"auth", "migration"},
		Links: []string{"mem_20260725_01kolder"}, CreatedAt: "2026-07-26T20:00:00.000Z",
		UpdatedAt: "2026-07-26T20:00:00.000Z", Body: "The token rotation tests pass. <ok> & \u2028 done.",
	}
}

func TestMemorySerializeWorkedExample(t *testing.T) {
	// Normalize the raw example through the write validator so the body trim
	// is exercised too.
	ex := workedExample()
	m, err := normalize(rawMemory{
		Schema: ex.Schema, ID: ex.ID, Title: ex.Title, Kind: ex.Kind, Scope: ex.Scope, Trust: ex.Trust,
		Status: ex.Status, SourceHarness: ex.SourceHarness, TargetHarnesses: ex.TargetHarnesses,
		Tags: ex.Tags, Links: ex.Links, CreatedAt: ex.CreatedAt, UpdatedAt: ex.UpdatedAt,
		Body: "  The token rotation tests pass. <ok> & \u2028 done.\n\n",
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	b := m.Serialize()
	sum := sha256.Sum256(b)
	if len(b) != 417 || hex.EncodeToString(sum[:]) != "a2bbe3f167501859ff370cfcac3334e1758faf9151d4f9692393a2ff7a0426fa" {
		t.Fatalf("serialized %d bytes, sha %x:\n%s", len(b), sum, b)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "reference", "project", "handoffs", "mem_20260726_01k123example.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(b) {
		t.Fatalf("fixture differs from writer output")
	}
	back, err := ParseDocument(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if jsjson.MarshalCompact(back.Full()) != jsjson.MarshalCompact(m.Full()) {
		t.Fatalf("round trip changed the memory:\n%s\n%s", jsjson.MarshalCompact(back.Full()), jsjson.MarshalCompact(m.Full()))
	}
}

func TestMemoryNewMemoryDefaults(t *testing.T) {
	now := time.Date(2026, 7, 27, 1, 2, 3, 4_000_000, time.UTC)
	m, err := NewMemory(SaveInput{Title: " T ", Body: "b", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != "note" || m.Scope != "project" || m.SourceHarness != "unknown" || m.Title != "T" ||
		strings.Join(m.TargetHarnesses, ",") != "all" || len(m.Tags) != 0 || len(m.Links) != 0 ||
		m.CreatedAt != "2026-07-27T01:02:03.004Z" || m.UpdatedAt != m.CreatedAt {
		t.Fatalf("unexpected defaults: %s", jsjson.MarshalCompact(m.Full()))
	}
	if !idRe.MatchString(m.ID) || len(m.ID) != 33 || !strings.HasPrefix(m.ID, "mem_20260727_") {
		t.Fatalf("bad id %q", m.ID)
	}
	r := m.ID[13:]
	if r[12] != '4' || !strings.ContainsRune("89ab", rune(r[16])) {
		t.Fatalf("id %q does not follow the UUIDv4 layout", m.ID)
	}
}
