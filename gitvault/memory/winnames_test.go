package memory

import (
	"testing"

	"github.com/git-echoes/git-echoes/internal/winname"
)

// Memory files are <root>/<kind>s/<id>.md (ecc-conformance §9). Kinds are a
// fixed set and ids match mem_[a-z0-9][a-z0-9_-]{2,127} (ecc-conformance §7.2), so no
// memory can be a name Windows cannot hold (issue 8): the "mem_" prefix
// rules out every device name and the alphabet every reserved character.
// This test holds that reasoning to the code: any id the validator accepts
// gives a portable path.
func FuzzMemoryPathPortable(f *testing.F) {
	for _, s := range []string{"mem_20260727_5e05ad7e356947279a33", "mem_con", "mem_aux.md", "CON", "mem_a:b", "mem_x.", " mem_abc ", "mem_lpt1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		norm, err := ValidateID(id)
		if err != nil {
			return
		}
		for _, kind := range Kinds {
			p := kind + "s/" + norm + ".md"
			if prefix, reason := winname.PathReason(p); reason != "" {
				t.Fatalf("id %q is valid but %s cannot exist on Windows: %s", id, prefix, reason)
			}
		}
	})
}
