package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
)

func TestResolve(t *testing.T) {
	checkout := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/git-echoes/git-echoes", Version: "v0.0.0-20260102030405-0123456789ab+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	tests := []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  Info
	}{
		{"no information", "", "", "", nil,
			Info{Version: Devel, GoVersion: runtime.Version()}},
		{"go test or -buildvcs=false", "", "", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			Info{Version: Devel, GoVersion: "go1.26.8"}},
		{"go install @version", "", "", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}},
			Info{Version: "v1.4.0", GoVersion: "go1.26.8"}},
		{"checkout", "", "", "", checkout,
			Info{Version: "v0.0.0-20260102030405-0123456789ab+dirty", Commit: "0123456789abcdef0123456789abcdef01234567",
				Date: "2026-01-02T03:04:05Z", Modified: true, GoVersion: "go1.26.8"}},
		{"stamps win", "v1.2.3", "abc", "2026-02-03T00:00:00Z", checkout,
			Info{Version: "v1.2.3", Commit: "abc", Date: "2026-02-03T00:00:00Z", Modified: true, GoVersion: "go1.26.8"}},
		{"partial stamps", "v1.2.3", "", "", checkout,
			Info{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-01-02T03:04:05Z",
				Modified: true, GoVersion: "go1.26.8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolve(tt.version, tt.commit, tt.date, tt.bi)
			want := tt.want
			want.ProtocolVersion, want.EngineVersion = gitvault.ProtocolVersion, gitvault.EngineVersion
			want.OS, want.Arch = runtime.GOOS, runtime.GOARCH
			if got != want {
				t.Errorf("resolve:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}
