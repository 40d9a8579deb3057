package memory

import (
	"strings"
	"testing"
)

// TestValidateScopesEmpty: no list (nil) is the default scopes; an empty
// list names no scope and stays empty, as the reference's "scopes": [].
func TestValidateScopesEmpty(t *testing.T) {
	if got, err := ValidateScopes(nil); err != nil || strings.Join(got, ",") != "project,team" {
		t.Errorf("nil: %v %v", got, err)
	}
	if got, err := ValidateScopes([]string{}); err != nil || got == nil || len(got) != 0 {
		t.Errorf("empty: %v %v", got, err)
	}
}
