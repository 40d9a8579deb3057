package gate

import "testing"

func TestIsFileExt(t *testing.T) {
	for s, want := range map[string]bool{"a.png": true, "dir/a.PDF": true, "a.md": false, "a.MD": false, "v1.2 notes": false,
		"a": false, ".png": false, "a.": false, "a.verylongextension": false, "a.tar.gz": true} {
		if got := isFileExt(s); got != want {
			t.Errorf("isFileExt(%q) = %v", s, got)
		}
	}
}
