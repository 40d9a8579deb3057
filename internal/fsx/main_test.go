package fsx

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// helperEnv selects the lock-worker role when the test binary is re-executed.
const helperEnv = "FSX_TEST_LOCK_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(refLockEnv) == "1" {
		if err := referenceLockMain(); err != nil {
			fmt.Fprintln(os.Stderr, "reference locker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(helperEnv) == "1" {
		if err := lockWorker(); err != nil {
			fmt.Fprintln(os.Stderr, "lock worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// lockWorker acquires the lock FSX_LOCK_PATH FSX_ITERATIONS times, each time
// appending one line to FSX_COUNTER_PATH with a read-modify-write.
func lockWorker() error {
	lockPath := os.Getenv("FSX_LOCK_PATH")
	counter := os.Getenv("FSX_COUNTER_PATH")
	n, err := strconv.Atoi(os.Getenv("FSX_ITERATIONS"))
	if err != nil {
		return fmt.Errorf("FSX_ITERATIONS: %w", err)
	}
	opt := LockOptions{Wait: 5 * time.Minute, Poll: 2 * time.Millisecond, Stale: 60 * time.Second, Refresh: 15 * time.Second}
	for i := range n {
		l, err := AcquireLock(lockPath, opt)
		if err != nil {
			return err
		}
		old, err := os.ReadFile(counter)
		if err != nil && !os.IsNotExist(err) {
			_ = l.Release()
			return err
		}
		if err := l.Verify(); err != nil {
			_ = l.Release()
			return err
		}
		line := fmt.Sprintf("%s %d\n", l.Token(), i)
		if err := WriteFileAtomic(counter, append(old, line...)); err != nil {
			_ = l.Release()
			return err
		}
		if err := l.Release(); err != nil {
			return err
		}
	}
	return nil
}
