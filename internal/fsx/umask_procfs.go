//go:build linux && !echoes_portable

package fsx

import (
	"bufio"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
)

var (
	umaskOnce  sync.Once
	umaskValue fs.FileMode
)

// processUmask returns the process umask, read once from /proc/self/status
// (which, unlike umask(2), does not modify process-global state), with a
// fallback of 0022 when it cannot be read.
func processUmask() fs.FileMode {
	umaskOnce.Do(func() {
		umaskValue = 0o022
		if m, ok := readProcUmask("/proc/self/status"); ok {
			umaskValue = m
		}
	})
	return umaskValue
}

func readProcUmask(statusPath string) (fs.FileMode, bool) {
	f, err := os.Open(statusPath)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, "Umask:")
		if !ok {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(rest), 8, 32)
		if err != nil {
			return 0, false
		}
		return fs.FileMode(v) & fs.ModePerm, true
	}
	return 0, false
}
