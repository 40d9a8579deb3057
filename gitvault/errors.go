package gitvault

import "fmt"

// Error is an expected protocol error: the CLI prints its message as
// {"ok": false, "error": ...} on stderr and exits 2. Messages are the
// reference engine's, word for word, where it has one.
type Error struct {
	Msg string
	Err error // optional cause, for errors.Is/As; not part of the message
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func errorf(format string, args ...any) *Error { return &Error{Msg: fmt.Sprintf(format, args...)} }

func wrapf(cause error, format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...), Err: cause}
}
