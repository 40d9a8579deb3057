package gitvault

import (
	"reflect"
	"testing"
)

// StackList reads an inline stack value as the viewer and find's JSON list
// it (echoes_find returned the raw "[go, docker]" string, issue 17).
func TestStackList(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want []string
	}{
		{"[go, docker]", []string{"go", "docker"}},
		{" [ 'go' , \"docker\" ] ", []string{"go", "docker"}},
		{"go", []string{"go"}},
		{"'go'", []string{"go"}},
		{"[]", nil},
		{"[go,, ]", []string{"go"}},
		{"", nil},
	} {
		if got := StackList(c.raw); !reflect.DeepEqual(got, c.want) {
			t.Errorf("StackList(%q) = %q, want %q", c.raw, got, c.want)
		}
	}
}
