// Package buildinfo says which git-echoes this is: the release version,
// commit and date, the Go toolchain, and the contract versions it
// implements (EchoesVault Protocol, engine).
//
// Release builds stamp Version, Commit and Date with the linker:
//
//	go build -ldflags "-X github.com/git-echoes/git-echoes/internal/buildinfo.Version=v1.2.3 \
//	  -X github.com/git-echoes/git-echoes/internal/buildinfo.Commit=<sha> \
//	  -X github.com/git-echoes/git-echoes/internal/buildinfo.Date=2026-01-02T03:04:05Z"
//
// Without stamps, the values come from the build information the Go
// toolchain embeds: the module version for `go install ...@vX.Y.Z`, and
// vcs.revision / vcs.time / vcs.modified for a build from a checkout.
package buildinfo

import (
	"runtime"
	"runtime/debug"

	"github.com/git-echoes/git-echoes/gitvault"
)

// Set by -ldflags -X at release time (the release configuration relies on
// exactly these names). They must stay plain uninitialised string
// variables: -X cannot set constants or variables initialised by code.
var (
	Version string
	Commit  string
	Date    string
)

// Devel is the version of a build that carries no version information,
// the same word the Go toolchain uses.
const Devel = "(devel)"

// The contract versions, taken from the engine so they cannot drift:
// ProtocolVersion is the EchoesVault Protocol supported, EngineVersion the
// engine identity recorded in state files (echoes-conformance §14.1, echoes-conformance §21.4).
const (
	ProtocolVersion = gitvault.ProtocolVersion
	EngineVersion   = gitvault.EngineVersion
)

// Info is the resolved build information. Commit and Date are empty when
// unknown.
type Info struct {
	Version         string
	Commit          string
	Date            string
	Modified        bool // built from a checkout with uncommitted changes
	GoVersion       string
	ProtocolVersion string
	EngineVersion   string
	OS, Arch        string
}

// Get resolves the build information of the running binary.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(Version, Commit, Date, bi)
}

// resolve prefers linker stamps, then the embedded build information.
func resolve(version, commit, date string, bi *debug.BuildInfo) Info {
	in := Info{
		Version:         version,
		Commit:          commit,
		Date:            date,
		GoVersion:       runtime.Version(),
		ProtocolVersion: ProtocolVersion,
		EngineVersion:   EngineVersion,
		OS:              runtime.GOOS,
		Arch:            runtime.GOARCH,
	}
	if bi != nil {
		if in.Version == "" && bi.Main.Version != "" {
			in.Version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			in.GoVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if in.Commit == "" {
					in.Commit = s.Value
				}
			case "vcs.time":
				if in.Date == "" {
					in.Date = s.Value
				}
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	if in.Version == "" {
		in.Version = Devel
	}
	return in
}
