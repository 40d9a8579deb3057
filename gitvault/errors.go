package gitvault

import (
	"errors"
	"fmt"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// Error is an expected protocol error: the CLI prints its message as
// {"ok": false, "error": ...} on stderr and exits 2. Messages are the
// reference engine's, word for word, where it has one.
type Error struct {
	Msg string
	Err error // optional cause, for errors.Is/As; not part of the message
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func Errorf(format string, args ...any) *Error { return &Error{Msg: fmt.Sprintf(format, args...)} }

func Wrapf(cause error, format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...), Err: cause}
}

// ErrorMessage is the message err is reported with: the engine's own
// message when err is or wraps an *Error, else err.Error().
func ErrorMessage(err error) string {
	var ve *Error
	if errors.As(err, &ve) {
		return ve.Msg
	}
	return err.Error()
}

// ErrorReply is the one shape in which an expected error is reported:
// {"ok": false, "error": msg}, the CLI's stderr line and the MCP server's
// tool error. The keys of context (check's "source") come between "ok"
// and "error", in their order; context may be nil.
func ErrorReply(msg string, context *pyjson.Obj) pyjson.Value {
	o := pyjson.NewObj().Set("ok", pyjson.Boolean(false))
	for _, k := range context.Keys() {
		v, _ := context.Get(k)
		o.Set(k, v)
	}
	return pyjson.ObjectValue(o.Set("error", pyjson.Str(msg)))
}
