package gitvault

import (
	"errors"
	"fmt"
	"testing"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

func TestErrorMessageAndReply(t *testing.T) {
	wrapped := fmt.Errorf("context: %w", Errorf("Page not found: x.md"))
	if got := ErrorMessage(wrapped); got != "Page not found: x.md" {
		t.Errorf("ErrorMessage(wrapped engine error) = %q", got)
	}
	if got := ErrorMessage(errors.New("plain")); got != "plain" {
		t.Errorf("ErrorMessage(plain) = %q", got)
	}
	if got, want := pyjson.Compact(ErrorReply("boom", nil)), `{"ok": false, "error": "boom"}`; got != want {
		t.Errorf("ErrorReply(nil) = %s, want %s", got, want)
	}
	ctx := pyjson.NewObj().Set("source", pyjson.Str("staged"))
	if got, want := pyjson.Compact(ErrorReply("boom", ctx)), `{"ok": false, "source": "staged", "error": "boom"}`; got != want {
		t.Errorf("ErrorReply(source) = %s, want %s", got, want)
	}
}
