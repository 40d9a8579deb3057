#!/usr/bin/env bash
# Run a Windows (amd64) Go program, typically a test binary built with
#   GOOS=windows GOARCH=amd64 go test -c -o pkg.test.exe ./pkg
# under Debian's wine64:  scripts/wine/run-test.sh pkg.test.exe -test.v ...
#
# Go >= 1.22 needs bcryptprimitives.dll!ProcessPrng, which Wine 8 lacks; the
# shim in processprng.c provides it and is installed in the prefix's system32. The
# Wine prefix is private to this script (WINEPREFIX, default under
# ${XDG_CACHE_HOME:-$HOME/.cache}), initialised once, headless.
#
# Debian has no Git for Windows and Wine cannot pipe a Linux program to a
# Windows one, so `git` on the Windows PATH is tools/winegit: a git.exe that
# forwards each call (paths translated by Wine) over loopback to a server
# running the real /usr/bin/git, started here for the duration of the run.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 PROGRAM.exe [ARGS...]" >&2; exit 2; }
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift

wine=$(command -v wine64 || true)
[ -n "$wine" ] || [ ! -x /usr/lib/wine/wine64 ] || wine=/usr/lib/wine/wine64
[ -n "$wine" ] || wine=$(command -v wine || true)
[ -n "$wine" ] || { echo "run-test.sh: wine64 is not installed (apt-get install wine64)" >&2; exit 1; }

cache=${XDG_CACHE_HOME:-$HOME/.cache}/git-echoes-wine
mkdir -p "$cache"
dll=$cache/bcryptprimitives.dll
if [ ! -f "$dll" ] || [ "$here/processprng.c" -nt "$dll" ]; then
  x86_64-w64-mingw32-gcc -shared -O2 -s -o "$dll.tmp" "$here/processprng.c" \
    || { echo "run-test.sh: building the ProcessPrng shim needs gcc-mingw-w64-x86-64" >&2; exit 1; }
  mv -f "$dll.tmp" "$dll"
fi
export WINEPREFIX=${WINEPREFIX:-$cache/prefix}
export WINEDEBUG=${WINEDEBUG:--all}
export WINEARCH=win64
# Native shim first; no Mono/Gecko install prompts; no display needed.
export WINEDLLOVERRIDES="bcryptprimitives=n,b;mscoree=;mshtml=;winemenubuilder.exe=d"
unset DISPLAY
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  "$wine" wineboot --init >/dev/null 2>&1 || true
  "$(dirname "$wine")/wineserver" -w 2>/dev/null || wineserver -w 2>/dev/null || true
fi
# Go loads the DLL from the system directory only (LOAD_LIBRARY_SEARCH_SYSTEM32).
sys32=$WINEPREFIX/drive_c/windows/system32
cmp -s "$dll" "$sys32/bcryptprimitives.dll" 2>/dev/null || cp -f "$dll" "$sys32/bcryptprimitives.dll"

# The git bridge: git.exe on the Windows PATH, its server on 127.0.0.1.
root=$(cd "$here/../.." && pwd)
bin=$cache/bin
mkdir -p "$bin"
# Built to temporary names and renamed, so concurrent runs never see half a file.
(cd "$root" && GOOS=windows GOARCH=amd64 go build -o "$bin/git.exe.$$" ./tools/winegit \
  && go build -o "$bin/winegit-server.$$" ./tools/winegit) || exit 1
mv -f "$bin/git.exe.$$" "$bin/git.exe" && mv -f "$bin/winegit-server.$$" "$bin/winegit-server"
addrfile=$(mktemp)
"$bin/winegit-server" serve >"$addrfile" &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$addrfile"' EXIT
for _ in $(seq 100); do [ -s "$addrfile" ] && break; sleep 0.05; done
ECHOES_WINEGIT_ADDR=$(head -n1 "$addrfile")
export ECHOES_WINEGIT_ADDR
export WINEPATH="$(printf 'Z:%s' "$bin" | tr / '\\')"

"$wine" "$exe" "$@"
