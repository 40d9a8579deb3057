#!/usr/bin/env bash
# Installs git-echoes for the GitHub Action (issue 20, action.yml): a
# released binary for this runner's OS and architecture, verified against
# the release's SHA256SUMS and kept in the runner's tool cache, or a build
# of a source tree with Go.
#
#   scripts/forge/install.sh
#
# Environment (action.yml sets it from its inputs):
#   GE_INSTALL       release (default) or source
#   GE_VERSION       a release (v1.2.3 or 1.2.3), a major or minor line (v1,
#                    v1.2: its newest release), or latest; empty: GE_ACTION_REF
#   GE_ACTION_REF    the ref the action was used at (github.action_ref)
#   GE_SOURCE        the source tree for GE_INSTALL=source
#   GIT_ECHOES_DOWNLOAD_URL  where releases are: <url>/<tag>/<archive>
#                    (default https://github.com/git-echoes/git-echoes/releases/download)
#   GIT_ECHOES_RELEASES_API  the releases API of the repository, for latest
#                    and v1-style versions (default
#                    https://api.github.com/repos/git-echoes/git-echoes)
#   GE_API_TOKEN     optional token for that API (rate limits)
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TOOL_CACHE, RUNNER_TEMP: the runner's
#                    (uname and temporary folders when unset)
#
# The archive names are .goreleaser.yaml's:
#   git-echoes_<version>_<os>_<arch>.tar.gz (.zip on Windows), holding one
#   folder of the same name with the binary.
# The binary goes to $RUNNER_TOOL_CACHE/git-echoes/<version>/<arch>/ (the
# runner's tool-cache layout, with the <arch>.complete marker written last, so
# an interrupted install is never taken for a cached one).
#
# Appends path= and version= to $GITHUB_OUTPUT and the binary's folder to
# $GITHUB_PATH when those are set; messages go to stderr, a failure also as
# an ::error workflow command on stdout. Exit 0 installed; 1 anything else, with one line saying what
# (unknown version, checksum mismatch, download failed, no Go).
# Bash 3.2 (macOS /bin/bash) too: no empty-array "${a[@]}" under set -u.
set -euo pipefail

say() { printf 'git-echoes install: %s\n' "$*" >&2; }
die() { printf '::error title=git-echoes install::%s\n' "$*"; say "error: $*"; exit 1; }

download_url=${GIT_ECHOES_DOWNLOAD_URL:-https://github.com/git-echoes/git-echoes/releases/download}
download_url=${download_url%/}
releases_api=${GIT_ECHOES_RELEASES_API:-https://api.github.com/repos/git-echoes/git-echoes}
releases_api=${releases_api%/}

# Windows runners give Windows paths; Git Bash reads them through cygpath.
unixpath() {
  if command -v cygpath >/dev/null 2>&1; then cygpath -u "$1"; else printf '%s\n' "$1"; fi
}

case ${RUNNER_OS:-$(uname -s)} in
  Linux|linux) os=linux ;;
  macOS|Darwin|darwin) os=darwin ;;
  Windows|windows|MINGW*|MSYS*|CYGWIN*) os=windows ;;
  FreeBSD|freebsd) os=freebsd ;;
  *) die "unsupported runner OS ${RUNNER_OS:-$(uname -s)} (releases exist for Linux, macOS, Windows and FreeBSD)" ;;
esac
case ${RUNNER_ARCH:-$(uname -m)} in
  X64|x64|x86_64|amd64|AMD64) arch=amd64; cache_arch=x64 ;;
  ARM64|arm64|aarch64) arch=arm64; cache_arch=arm64 ;;
  *) die "unsupported runner architecture ${RUNNER_ARCH:-$(uname -m)} (releases exist for x64 and arm64)" ;;
esac
exe=
[ "$os" = windows ] && exe=.exe

tmp_root=$(unixpath "${RUNNER_TEMP:-${TMPDIR:-/tmp}}")
work=$(mktemp -d "$tmp_root/git-echoes-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

publish() { # publish DIR VERSION: the outputs and PATH of the installed binary
  local dir=$1 version=$2
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf 'path=%s\nversion=%s\n' "$dir/git-echoes$exe" "$version" >>"$GITHUB_OUTPUT"
  fi
  if [ -n "${GITHUB_PATH:-}" ]; then
    printf '%s\n' "$dir" >>"$GITHUB_PATH"
  fi
  say "git-echoes $version at $dir/git-echoes$exe"
}

# --- install: source ---------------------------------------------------------
if [ "${GE_INSTALL:-release}" = source ]; then
  src=$(unixpath "${GE_SOURCE:-.}")
  [ -f "$src/go.mod" ] && [ -d "$src/cmd/git-echoes" ] ||
    die "install: source needs the git-echoes source tree; $src has no cmd/git-echoes"
  command -v go >/dev/null 2>&1 ||
    die "install: source builds with Go, and go is not on PATH: add actions/setup-go (go-version-file: go.mod) before this step, or use install: release"
  dest=$tmp_root/git-echoes-source/bin
  mkdir -p "$dest"
  say "building $src/cmd/git-echoes with $(go version)"
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$dest/git-echoes$exe" ./cmd/git-echoes) ||
    die "go build of $src/cmd/git-echoes failed"
  publish "$dest" source
  exit 0
fi
[ "${GE_INSTALL:-release}" = release ] || die "install must be release or source, not '${GE_INSTALL}'"

# --- the version ---------------------------------------------------------------
fetch() { # fetch URL FILE: 0, or the HTTP status (000 when unreachable) on stdout
  local code
  local auth=()
  if [ -n "${GE_API_TOKEN:-}" ] && [ "${3:-}" = api ]; then
    auth=(-H "Authorization: Bearer $GE_API_TOKEN")
  fi
  code=$(curl -sSL --retry 3 --retry-delay 1 --connect-timeout 20 -o "$2" -w '%{http_code}' ${auth[@]+"${auth[@]}"} "$1" 2>"$work/curl.err") || true
  case $code in
    2??) return 0 ;;
    *) printf '%s\n' "${code:-000}"; return 1 ;;
  esac
}

tags_from() { grep -o '"tag_name": *"[^"]*"' "$1" | sed 's/.*"\([^"]*\)"$/\1/'; }

requested=${GE_VERSION:-}
if [ -z "$requested" ]; then
  requested=${GE_ACTION_REF:-}
  [ -n "$requested" ] || die "no version: set the version input (a release such as v1.2.3, or latest)"
  say "version: the action's ref, $requested"
fi
case $requested in
  latest)
    code=$(fetch "$releases_api/releases/latest" "$work/latest.json" api) ||
      die "cannot resolve version latest: $releases_api/releases/latest answered HTTP $code"
    tag=$(tags_from "$work/latest.json" | head -n 1)
    [ -n "$tag" ] || die "cannot resolve version latest: no tag_name in the answer of $releases_api/releases/latest"
    ;;
  v[0-9]*.[0-9]*.[0-9]*|[0-9]*.[0-9]*.[0-9]*) tag=v${requested#v} ;;
  v[0-9]*|v[0-9]*.[0-9]*)
    # A major or minor line, as in uses: git-echoes/git-echoes@v1: its
    # newest release that is not a pre-release (no '-' in the version).
    code=$(fetch "$releases_api/releases?per_page=100" "$work/releases.json" api) ||
      die "cannot resolve version $requested: $releases_api/releases answered HTTP $code"
    tag=$(tags_from "$work/releases.json" | grep -E "^${requested//./\\.}\.[0-9.]+$" |
      awk -F. '{ printf "%09d %09d %09d %s\n", substr($1, 2), $2, $3, $0 }' | sort | tail -n 1 | cut -d' ' -f4 || true)
    [ -n "$tag" ] || die "unknown version $requested: no release v${requested#v}.x is published at $releases_api/releases"
    ;;
  *) die "version '$requested' is not a release (v1.2.3), a release line (v1, v1.2) or latest; set the version input, or install: source to build this ref" ;;
esac
case $tag in
  v[0-9]*.[0-9]*.[0-9]*) ;;
  *) die "version $requested resolved to '$tag', which is not a release tag vX.Y.Z" ;;
esac
version=${tag#v}

# --- the tool cache --------------------------------------------------------------
cache_root=$(unixpath "${RUNNER_TOOL_CACHE:-$tmp_root/git-echoes-tool-cache}")
cache=$cache_root/git-echoes/$version/$cache_arch
if [ -f "$cache.complete" ] && [ -x "$cache/git-echoes$exe" ]; then
  say "cached: $cache"
  publish "$cache" "$version"
  exit 0
fi

# --- download and verify ----------------------------------------------------------
ext=tar.gz
[ "$os" = windows ] && ext=zip
name=git-echoes_${version}_${os}_${arch}
archive=$name.$ext
base=$download_url/$tag

code=$(fetch "$base/SHA256SUMS" "$work/SHA256SUMS") ||
  case $code in
    404) die "unknown version $tag: $base/SHA256SUMS does not exist (HTTP 404); is $tag a published release?" ;;
    000) die "cannot download $base/SHA256SUMS: $(head -n 1 "$work/curl.err")" ;;
    *) die "cannot download $base/SHA256SUMS: HTTP $code" ;;
  esac
want=$(awk -v f="$archive" '($2 == f || $2 == "*" f) { print $1 }' "$work/SHA256SUMS")
[ -n "$want" ] || die "$tag has no $archive in its SHA256SUMS (no release for $os/$arch?)"
[ "$(printf '%s\n' "$want" | wc -l)" -eq 1 ] || die "$tag's SHA256SUMS lists $archive more than once"
code=$(fetch "$base/$archive" "$work/$archive") || die "cannot download $base/$archive: HTTP $code"

if command -v sha256sum >/dev/null 2>&1; then
  got=$(sha256sum "$work/$archive" | awk '{ print $1 }')
elif command -v shasum >/dev/null 2>&1; then
  got=$(shasum -a 256 "$work/$archive" | awk '{ print $1 }')
else
  die "neither sha256sum nor shasum is on PATH: cannot verify $archive"
fi
# Compare in lower case: a hand-edited SHA256SUMS may use upper case.
if [ "$(printf '%s' "$got" | tr 'A-F' 'a-f')" != "$(printf '%s' "$want" | tr 'A-F' 'a-f')" ]; then
  die "checksum mismatch for $archive: SHA256SUMS says $want, the download is $got; refusing to install it"
fi
say "verified $archive (sha256 $got)"

# --- extract into the cache ------------------------------------------------------
mkdir -p "$work/x"
case $ext in
  tar.gz) tar -xzf "$work/$archive" -C "$work/x" || die "cannot extract $archive" ;;
  zip)
    if command -v unzip >/dev/null 2>&1; then
      unzip -q "$work/$archive" -d "$work/x" || die "cannot extract $archive"
    elif command -v pwsh >/dev/null 2>&1 || command -v powershell >/dev/null 2>&1; then
      ps=$(command -v pwsh || command -v powershell)
      "$ps" -NoProfile -NonInteractive -Command "Expand-Archive -LiteralPath '$(cygpath -w "$work/$archive" 2>/dev/null || echo "$work/$archive")' -DestinationPath '$(cygpath -w "$work/x" 2>/dev/null || echo "$work/x")'" ||
        die "cannot extract $archive"
    else
      die "neither unzip nor PowerShell is available to extract $archive"
    fi ;;
esac
[ -f "$work/x/$name/git-echoes$exe" ] || die "$archive does not hold $name/git-echoes$exe"

rm -rf "$cache" "$cache.complete"
mkdir -p "$(dirname "$cache")"
mv "$work/x/$name" "$cache"
chmod +x "$cache/git-echoes$exe"
# The binary must say it is the version asked for (a release stamps it).
if got_version=$("$cache/git-echoes$exe" version --format json 2>/dev/null); then
  case $got_version in
    *"\"version\": \"$version\""*) ;;
    *) rm -rf "$cache"; die "the binary in $archive does not report version $version" ;;
  esac
else
  rm -rf "$cache"
  die "the binary in $archive does not run on this runner ($os/$arch)"
fi
: >"$cache.complete"
publish "$cache" "$version"
