package memory

import (
	"reflect"
	"testing"
)

// Read through a kept scan answers from its id index (scanmemo.go, issue
// 19). The index must give exactly what the walk over every entry gives
// (duplicates, harness filters, inactive backlinks, the
// order), and it must go with its scan: after a change under the roots
// (the generation moves) a read sees the new files. An index kept across
// generations, or built from a reordered copy, fails the comparison.
func TestMemoryReadIndexMatchesScan(t *testing.T) {
	r := testRoots(t)
	writeMemory(t, r, mem("mem_target", func(m *Memory) { m.Links = []string{"mem_target"} }))
	writeMemory(t, r, mem("mem_src_b", func(m *Memory) { m.Links = []string{"mem_other", "mem_target"} }))
	writeMemory(t, r, mem("mem_src_a", func(m *Memory) { m.Links = []string{"mem_target"} }))
	writeMemory(t, r, mem("mem_rejected", func(m *Memory) { m.Links = []string{"mem_target"}; m.Status = "rejected" }))
	writeMemory(t, r, mem("mem_claude_only", func(m *Memory) {
		m.Links = []string{"mem_target", "mem_dup"}
		m.TargetHarnesses = []string{"claude"}
		m.Scope = "team"
	}))
	writeMemory(t, r, mem("mem_dup"))
	writeMemory(t, r, mem("mem_dup", func(m *Memory) { m.Scope = "team" }))
	writeMemory(t, r, mem("mem_other", func(m *Memory) { m.Kind = "fact"; m.Links = []string{"mem_src_a"} }))

	c := NewCache()
	gen := uint64(1)
	c.SetFreshness(func([]string) (uint64, bool) { return gen, true })
	cached := *r
	cached.cache = c
	scopes, err := ValidateScopes(nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"mem_target", "mem_src_a", "mem_src_b", "mem_rejected", "mem_claude_only", "mem_dup", "mem_other", "mem_new", "mem_missing"}
	check := func(stage string) {
		t.Helper()
		for _, id := range ids {
			for _, h := range []string{"", "codex", "claude"} {
				want, wantErr := Read(r, id, ReadOptions{TargetHarness: h}) // no cache: every entry
				for round := range 2 {                                      // a miss that keeps the scan, then the kept scan
					got, err := Read(&cached, id, ReadOptions{TargetHarness: h})
					if !reflect.DeepEqual(got, want) || errString(err) != errString(wantErr) {
						t.Fatalf("%s: Read(%s, harness %q) round %d = %+v, %v; every entry gives %+v, %v", stage, id, h, round, got, err, want, wantErr)
					}
				}
			}
		}
		sr, err := scanShared(&cached, scopes)
		if err != nil || sr.index == nil || sr.index.byID == nil {
			t.Fatalf("%s: the kept scan has no built index (%v, %+v, %v)", stage, err, sr.Diagnostics, sr.index)
		}
	}
	check("first scan")
	if _, err := Read(&cached, "mem_new", ReadOptions{}); ErrorCode(err) != CodeNotFound {
		t.Fatalf("mem_new before it exists: %v", err)
	}

	writeMemory(t, r, mem("mem_new", func(m *Memory) { m.Links = []string{"mem_target"} }))
	writeMemory(t, r, mem("mem_src_a", func(m *Memory) { m.Links = []string{"mem_other"}; m.Body = "no longer links the target" }))
	gen++
	check("after a change")
	res, err := Read(&cached, "mem_target", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var back []string
	for _, m := range res.Backlinks {
		back = append(back, m.ID)
	}
	if !reflect.DeepEqual(back, []string{"mem_claude_only", "mem_new", "mem_src_b", "mem_target"}) {
		t.Fatalf("backlinks after the change: %v", back)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
