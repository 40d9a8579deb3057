package gitvault

import (
	"errors"

	"github.com/git-echoes/git-echoes/internal/fsx"
)

// lockError renders a failure to take the lock (echoes-conformance §6).
func lockError(ws *Workspace, err error) error {
	var ne *fsx.LockNotFileError
	switch {
	case errors.Is(err, fsx.ErrLockBusy):
		return Wrapf(err, lockBusyMessage)
	case errors.As(err, &ne):
		// A directory or FIFO at the lock path never goes away by itself;
		// the reference reports it as "still running" forever (issue 11
		// item 3): say what is there and where.
		return Wrapf(err, "Cannot acquire EchoesVault lock: %s is %s, not a lock file. Remove it, then retry.",
			ws.Lock, fsx.DescribeType(ne.Mode))
	}
	return Wrapf(err, "Cannot acquire EchoesVault lock %s: %s", ws.Lock, OSDetail(err))
}
