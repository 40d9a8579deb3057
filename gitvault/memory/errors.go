package memory

import "errors"

// Error codes. CodeIncomplete is the reference's core code; the others are
// stable classifications so that adapters can map failures without
// matching message text.
const (
	// CodeIncomplete: the scan could not prove absence, uniqueness or
	// complete backlinks (truncated scan, invalid file in a read scan, or a
	// directory I/O error).
	CodeIncomplete = "ECC_MEMORY_INCOMPLETE"
	// CodeInvalid: input or option validation failed.
	CodeInvalid = "ECC_MEMORY_INVALID"
	// CodeSecret: a save was refused because it contains a suspected secret.
	CodeSecret = "ECC_MEMORY_SECRET"
	// CodeExists: the destination id already exists (writes are create-only).
	CodeExists = "ECC_MEMORY_EXISTS"
	// CodeNotFound: no visible memory has the requested id.
	CodeNotFound = "ECC_MEMORY_NOT_FOUND"
	// CodeDuplicated: several visible files hold the requested id.
	CodeDuplicated = "ECC_MEMORY_DUPLICATED"
	// CodeUnsafePath: a root, directory or file failed a symlink or
	// containment check.
	CodeUnsafePath = "ECC_MEMORY_UNSAFE_PATH"
	// CodeGitignore: the project .gitignore guard does not hold the
	// required fail-closed rules.
	CodeGitignore = "ECC_MEMORY_GITIGNORE"
	// CodeIO: any other filesystem failure.
	CodeIO = "ECC_MEMORY_IO"
)

// IncompleteMessage is the fixed message of CodeIncomplete.
const IncompleteMessage = "Memory lookup is incomplete. Inspect the authorized vault before retrying."

// Error is every failure returned by this package. Message is the
// reference's user-facing text (it may contain absolute paths, never
// secret values); Err, when set, is the underlying cause.
type Error struct {
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the Code of err if it is (or wraps) an *Error, else "".
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func newErr(code, msg string) *Error { return &Error{Code: code, Message: msg} }

func invalid(msg string) *Error { return &Error{Code: CodeInvalid, Message: msg} }

func incomplete(cause error) *Error {
	return &Error{Code: CodeIncomplete, Message: IncompleteMessage, Err: cause}
}
