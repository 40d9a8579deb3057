package review

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

// TestLogCommitGraph: log gives the same entries, byte for byte, from
// loose objects, from a pack, with the commit-graph file git writes, and
// with that file damaged or truncated (it is then ignored, never an error
// or a different answer).
func TestLogCommitGraph(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		t.Run("seed"+strconv.FormatUint(seed, 10), func(t *testing.T) {
			rr := branchyHistory(t, seed)
			paths := rr.everyPagePath()
			all := func() []*LogResult {
				var out []*LogResult
				for _, p := range paths {
					for _, follow := range []bool{false, true} {
						res, err := Log(rr.e, LogOptions{Target: p, Follow: follow})
						if err != nil {
							t.Fatal(err)
						}
						out = append(out, res)
					}
				}
				return out
			}
			want := all()
			graph := filepath.Join(rr.dir, ".git", "objects", "info", "commit-graph")
			check := func(what string) {
				t.Helper()
				if got := all(); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: log differs from the loose-object answer", what)
				}
			}
			rr.git("repack", "-a", "-d", "-q")
			check("packed")
			rr.git("-c", "core.commitGraph=true", "commit-graph", "write", "--reachable")
			raw, err := os.ReadFile(graph)
			if err != nil {
				t.Fatal(err)
			}
			check("with a commit-graph")
			for _, i := range []int{9, len(raw) / 3, len(raw) / 2, len(raw) - 30} {
				bad := append([]byte(nil), raw...)
				bad[i] ^= 0x01
				if err := os.WriteFile(graph, bad, 0o644); err != nil {
					t.Fatal(err)
				}
				check("damaged commit-graph at byte " + strconv.Itoa(i))
			}
			if err := os.WriteFile(graph, raw[:len(raw)/2], 0o644); err != nil {
				t.Fatal(err)
			}
			check("truncated commit-graph")
		})
	}
}
