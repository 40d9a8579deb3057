package fswatch_test

import "time"

func sleep100ms() { time.Sleep(100 * time.Millisecond) }
