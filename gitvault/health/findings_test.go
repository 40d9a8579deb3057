package health

import (
	"reflect"
	"testing"
)

func TestFindings(t *testing.T) {
	h := Health{OrphanPages: []string{"x"}, StateFile: StateFileStatus{Valid: false, Error: "bad state"}, IrregularFiles: []string{"f"}}
	got := h.Findings()
	want := []Finding{{"orphan pages", []string{"x"}}, {"invalid runtime state", []string{"bad state"}}, {"files that are not regular files", []string{"f"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v", got)
	}
}
