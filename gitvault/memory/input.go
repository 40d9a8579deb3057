package memory

import (
	"errors"
	"io"
)

// MaxRawBodyInput caps raw body input (stdin, --body-file) before
// decoding and trimming. The reference caps it at exactly 65536 bytes, so
// a 65536-byte body piped with a trailing newline is refused although it
// would be stored validly; we read a little more and let the trimmed-body
// limit (MaxBodyBytes) decide. Every body accepted this way is one the
// reference reads.
const MaxRawBodyInput = MaxBodyBytes + 4096

// ReadBody reads a memory body from r (the CLI's --stdin): at most
// MaxRawBodyInput bytes, fatal UTF-8 decoding, one leading BOM removed.
func ReadBody(r io.Reader) (string, error) {
	raw, err := readCapped(r, MaxRawBodyInput)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return "", invalid("memory body is too large (maximum 65536 bytes).")
		}
		return "", &Error{Code: CodeIO, Message: "cannot read standard input: " + err.Error(), Err: err}
	}
	text, ok := DecodeUTF8Fatal(raw)
	if !ok {
		return "", invalid("memory body from standard input must contain valid UTF-8 text.")
	}
	return text, nil
}

// ReadBodyFile reads a memory body from a file (the CLI's --body-file),
// resolved lexically against cwd, with the guarded reader: no symlinks, no
// FIFOs or other non-regular files, UTF-8 only, BOM removed.
func ReadBodyFile(cwd, path string) (string, error) {
	return readGuarded(resolveLexical(cwd, path), "--body-file", MaxRawBodyInput, "")
}
