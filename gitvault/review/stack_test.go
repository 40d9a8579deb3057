package review

import "testing"

// The review reads stack as its items (gitvault.StackOf, issue 17: stack
// was read three ways): "[go, docker]", a block list and a scalar of the
// same items are the same stack, shown "go, docker".
func TestPageMetaStack(t *testing.T) {
	page := func(stack string) []byte {
		return []byte("---\ntype: note\nstack:" + stack + "\nstatus: active\nsummary: s\n---\n\nbody\n")
	}
	for _, c := range []struct{ stack, want string }{
		{" [go, docker]", "go, docker"},
		{"\n  - go\n  - docker", "go, docker"},
		{" go", "go"},
		{" ['go']", "go"},
	} {
		if m := pageMeta(page(c.stack)); m.Invalid != "" || m.Stack != c.want {
			t.Errorf("stack:%q: %+v, want %q", c.stack, m, c.want)
		}
	}
}
