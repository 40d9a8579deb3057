package viewer

import (
	"errors"
	"strings"
)

// OpenCommand returns the program and arguments that open url in the
// desktop's browser on goos: xdg-open on Linux and the BSDs, open on macOS,
// rundll32's URL handler on Windows. The URL is one argument, never part of
// a shell string, and must be one of the viewer's own loopback URLs (so it
// cannot start with '-' or carry anything but the address and the token).
func OpenCommand(goos, url string) (string, []string, error) {
	if !strings.HasPrefix(url, "http://127.0.0.1:") && !strings.HasPrefix(url, "http://[::1]:") ||
		strings.ContainsAny(url, " \t\r\n\"'`&|;<>^%") {
		return "", nil, errors.New("refusing to open a URL that is not the viewer's")
	}
	switch goos {
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler", url}, nil
	case "darwin":
		return "open", []string{url}, nil
	}
	return "xdg-open", []string{url}, nil
}
