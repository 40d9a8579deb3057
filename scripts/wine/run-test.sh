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
# leaves each call (paths translated by Wine) in a spool directory for a
# server running the real /usr/bin/git, started here for the duration of the
# run. Files, not a socket: git.exe then needs no Winsock (see its doc).
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

# The git bridge: git.exe on the Windows PATH, its server on a spool directory.
root=$(cd "$here/../.." && pwd)
bin=$cache/bin
mkdir -p "$bin"
# Built to temporary names and renamed, so concurrent runs never see half a file.
(cd "$root" && GOOS=windows GOARCH=amd64 go build -o "$bin/git.exe.$$" ./tools/winegit \
  && go build -o "$bin/winegit-server.$$" ./tools/winegit) || exit 1
mv -f "$bin/git.exe.$$" "$bin/git.exe" && mv -f "$bin/winegit-server.$$" "$bin/winegit-server"
spool=$(mktemp -d)
"$bin/winegit-server" serve "$spool" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$spool"' EXIT
# Wine maps drive Z: to /.
ECHOES_WINEGIT_SPOOL="$(printf 'Z:%s' "$spool" | tr / '\\')"
export ECHOES_WINEGIT_SPOOL
export WINEPATH="$(printf 'Z:%s' "$bin" | tr / '\\')"

# Wine now and then fails, under load, to start a process or to initialise
# a DLL in one (seen: "Failed to load ws2_32.dll: DLL initialization
# failed", a panic in Go's net package before main, in a git-echoes.exe a
# script test started; and "fork/exec ...\git.exe: Internal error.", Wine's
# CreateProcess answering ERROR_INTERNAL_ERROR for the git bridge). That is
# Wine's, not the code's: a run that failed and printed one of those
# messages is run again, only for the tests that failed (the whole binary
# when it died before any test reported). A failed test is tried up to
# three more times, Wine's server restarted before each (a retry right
# after the failure once hit the same error: the server was still in the
# state that caused it); the first answer that is not Wine's failure is
# the answer. Any other failure is reported as it is.
wine_flake='DLL initialization failed|fork/exec [^ ]*: Internal error'
log=$(mktemp)
trap 'kill $server 2>/dev/null; rm -rf "$spool" "$log"' EXIT
rc=0
"$wine" "$exe" "$@" 2>&1 | tee "$log" || rc=$?
[ "$rc" -ne 0 ] && grep -Eq "$wine_flake" "$log" || exit "$rc"

# The failed tests, as -test.run patterns: each failed top-level test, with
# its failed first-level subtests when it has any (go test prints them
# indented by four spaces under their parent).
quote() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'; }
patterns=()
for top in $(sed -n 's/^--- FAIL: \([^ ]*\) .*/\1/p' "$log" | sort -u); do
  subs=$(sed -n "s/^    --- FAIL: $(quote "$top")\/\([^ ]*\) .*/\1/p" "$log" | sort -u)
  if [ -n "$subs" ]; then
    alt=$(for s in $subs; do quote "$s"; echo; done | paste -sd'|')
    patterns+=("^$(quote "$top")\$/^($alt)\$")
  else
    patterns+=("^$(quote "$top")\$")
  fi
done
if [ ${#patterns[@]} -eq 0 ]; then
  echo "run-test.sh: Wine failed (above) before any test reported; running $(basename "$exe") once more" >&2
  exec "$wine" "$exe" "$@"
fi
# restart_wine ends Wine's server and every Wine process of the prefix
# (none of ours is running between two tries), so the next try starts a
# fresh one.
restart_wine() {
  "$(dirname "$wine")/wineserver" -k 2>/dev/null || wineserver -k 2>/dev/null || true
  sleep 2
}
rc=0
for pat in "${patterns[@]}"; do
  for try in 1 2 3; do
    restart_wine
    echo "run-test.sh: Wine failed to start a process or a DLL (above); running -test.run '$pat' again (try $try of 3)" >&2
    trc=0
    "$wine" "$exe" "$@" -test.run "$pat" 2>&1 | tee "$log" || trc=$?
    [ "$trc" -ne 0 ] && grep -Eq "$wine_flake" "$log" || break
  done
  [ "$trc" -eq 0 ] || rc=$trc
done
exit "$rc"
