package linediff

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// oneHunk must give exactly the script of the whole algorithm wherever it
// answers. Random pairs over a tiny alphabet make every shape it decides
// (nothing changed, lines added, removed, one replaced) with and without
// neighbours that let compaction slide the hunk.
func TestOneHunkAgreesWithMyers(t *testing.T) {
	rng := rand.New(rand.NewSource(18))
	answered, refused := 0, 0
	for n := 0; n < 200000; n++ {
		a := randomLines(rng, rng.Intn(8))
		b := mutate(rng, a)
		want := myers(a, b)
		got, ok := oneHunk(a, b)
		if !ok {
			refused++
			if gotAll := Lines(a, b); !reflect.DeepEqual(gotAll, want) {
				t.Fatalf("Lines(%q, %q) = %v; myers %v", a, b, gotAll, want)
			}
			continue
		}
		answered++
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("oneHunk(%q, %q) = %v; myers %v", a, b, got, want)
		}
	}
	if answered < 10000 || refused < 10000 {
		t.Fatalf("answered %d, refused %d: the inputs do not exercise both sides", answered, refused)
	}
}

// TestOneHunkSlides: the hunks compaction moves are left to it.
func TestOneHunkSlides(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		ok   bool
	}{
		{"x y z", "x y z", true},
		{"x y z", "x q z", true},
		{"x y z", "x z", true},
		{"x y y z", "x y z", false}, // which y went: compaction decides
		{"x z", "x y y z", true},    // both added: nothing to choose
		{"x y z", "x y z y", true},  // added at the end, after a different line
		{"y x y", "y y x y", false},
		{"a b a", "a a a", false}, // the replacing line equals a neighbour
		{"a b c", "a a c", false},
	} {
		a, b := strings.Fields(tc.a), strings.Fields(tc.b)
		got, ok := oneHunk(a, b)
		if ok != tc.ok {
			t.Errorf("oneHunk(%q, %q) answered %v, want %v", tc.a, tc.b, ok, tc.ok)
		}
		if ok && !reflect.DeepEqual(got, myers(a, b)) {
			t.Errorf("oneHunk(%q, %q) = %v; myers %v", tc.a, tc.b, got, myers(a, b))
		}
	}
}

func FuzzOneHunk(f *testing.F) {
	f.Add("x\ny\nz\n", "x\nq\nz\n")
	f.Add("x\ny\ny\nz\n", "x\ny\nz\n")
	f.Add("", "a\n")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, b := strings.SplitAfter(x, "\n"), strings.SplitAfter(y, "\n")
		if got, ok := oneHunk(a, b); ok && !reflect.DeepEqual(got, myers(a, b)) {
			t.Fatalf("oneHunk(%q, %q) = %v; myers %v", x, y, got, myers(a, b))
		}
	})
}

func randomLines(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a' + rng.Intn(3)))
	}
	return out
}

// mutate makes b from a: usually one small edit, so that the shortcut's
// shapes are common.
func mutate(rng *rand.Rand, a []string) []string {
	b := append([]string(nil), a...)
	for e := rng.Intn(3); e >= 0; e-- {
		at := rng.Intn(len(b) + 1)
		switch rng.Intn(3) {
		case 0:
			b = append(b[:at], append(randomLines(rng, 1+rng.Intn(2)), b[at:]...)...)
		case 1:
			if at < len(b) {
				b = append(b[:at], b[at+1:]...)
			}
		default:
			if at < len(b) {
				b[at] = string(rune('a' + rng.Intn(4)))
			}
		}
	}
	return b
}
