//go:build !linux

package gctune

import "errors"

// populate is not offered here: the pages are faulted as they are used.
func populate([]byte, bool) error { return errors.ErrUnsupported }
