#!/usr/bin/env bash
# Build one package's Windows (amd64) test binary and run it under wine64,
# in the package's directory as `go test` would:
#   scripts/wine/go-test.sh ./internal/fsx [-test.run X -test.v ...]
#
# Wine 8 answers NtSetInformationFile(FileDispositionInformationEx) with an
# error Go's os.Remove does not expect ("Invalid function"), so every
# os.RemoveAll, t.TempDir's clean-up included, would fail there. The build
# overlays Go's internal/syscall/windows/at_windows.go with a copy whose
# TestDeleteatFallback hook (Go's own switch for its fallback path) is on:
# deletes take the pre-Windows-10 route that Wine implements. The overlay is
# made from the installed Go at run time, applies to this build only, and
# changes nothing in the project or in Go.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 PACKAGE [TEST FLAGS...]" >&2; exit 2; }
pkg=$1
shift

cache=${XDG_CACHE_HOME:-$HOME/.cache}/git-echoes-wine
ov=$(mktemp -d)
out=$(mktemp -d)
trap 'rm -rf "$ov" "$out"' EXIT
src=$(go env GOROOT)/src/internal/syscall/windows/at_windows.go
grep -q '^var TestDeleteatFallback bool$' "$src" \
  || { echo "go-test.sh: $src has no TestDeleteatFallback switch; update the overlay" >&2; exit 1; }
sed 's/^var TestDeleteatFallback bool$/var TestDeleteatFallback = true/' "$src" >"$ov/at_windows.go"
printf '{"Replace":{"%s":"%s"}}\n' "$src" "$ov/at_windows.go" >"$ov/overlay.json"

dir=$(go list -f '{{.Dir}}' "$pkg")
name=$(basename "$dir")
GOOS=windows GOARCH=amd64 go test -overlay "$ov/overlay.json" ${GOTEST_TAGS:+-tags "$GOTEST_TAGS"} -c -o "$out/$name.test.exe" "$pkg"
[ -f "$out/$name.test.exe" ] || { echo "go-test.sh: $pkg has no tests" >&2; exit 0; }
cd "$dir"
"$here/run-test.sh" "$out/$name.test.exe" "$@"
