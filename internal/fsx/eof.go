//go:build !((linux || darwin || freebsd) && !echoes_portable)

package fsx

import (
	"errors"
	"io"
)

// eofAsZero adapts an io.Reader to readLoop, which expects 0, nil at EOF.
func eofAsZero(r io.Reader) func([]byte) (int, error) {
	return func(p []byte) (int, error) {
		n, err := r.Read(p)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		return n, err
	}
}
