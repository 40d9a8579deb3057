#!/usr/bin/env bash
# Builds the release archives of git-echoes (issue 8): one archive per
# target (linux, darwin: amd64 and arm64; windows: amd64 and arm64, as .zip;
# freebsd/amd64), each holding the binary, README.md, LICENSE when the
# repository has one, the man pages (man/man1/) and the shell completions
# (completions/), plus SHA256SUMS. The build itself is .goreleaser.yaml;
# this script pins and installs GoReleaser, runs it without publishing, and
# copies the archives and SHA256SUMS to OUTDIR.
#
#   scripts/release.sh --snapshot [OUTDIR]   any commit; version <next patch>-snapshot-<commit>
#   scripts/release.sh [OUTDIR]              HEAD must carry a tag vX.Y.Z and the tree be clean
#
# OUTDIR defaults to dist/, GoReleaser's own working folder (emptied at the
# start of every run). Nothing is uploaded: .github/workflows/release.yml
# publishes OUTDIR.
#
# GoReleaser: the version pinned in scripts/release/goreleaser.sh, installed
# on first use; GORELEASER=path in the environment uses that one instead.
set -euo pipefail

snapshot=
outdir=
for arg in "$@"; do
  case $arg in
    --snapshot) snapshot=--snapshot ;;
    -h|--help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
    -*) echo "release: unknown option $arg" >&2; exit 2 ;;
    *)
      [ -z "$outdir" ] || { echo "release: one OUTDIR only" >&2; exit 2; }
      outdir=$arg ;;
  esac
done
# OUTDIR is relative to the caller's directory, not the repository's.
if [ -n "$outdir" ]; then
  mkdir -p "$outdir"
  outdir=$(cd "$outdir" && pwd -P)
fi

cd "$(dirname "$0")/.."
root=$(pwd -P)

# A tag release checks that the work tree is clean; an OUTDIR inside it
# would make the next run fail on its own output.
if [ -z "$snapshot" ] && [ -n "$outdir" ] && [ "$outdir" != "$root/dist" ]; then
  case $outdir/ in
    "$root"/*)
      if ! git check-ignore -q "$outdir"; then
        echo "release: OUTDIR $outdir is inside the work tree and not ignored by git; choose a folder outside it" >&2
        rmdir "$outdir" 2>/dev/null || true # made above if it was new; only if empty
        exit 2
      fi ;;
  esac
fi

# One version (issue 23): internal/buildinfo.ReleaseVersion, the agent plugin
# manifests and, for a release, the tag must agree; a snapshot is
# <ReleaseVersion>-snapshot-<commit> (.goreleaser.yaml reads it from
# GIT_ECHOES_VERSION). Checked before anything is built.
if [ -n "$snapshot" ]; then
  GIT_ECHOES_VERSION=$(python3 scripts/release/versions.py "$root") || exit 1
else
  if ! tag=$(git describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null); then
    echo "release: HEAD carries no tag vX.Y.Z (use --snapshot for an untagged commit)" >&2
    exit 2
  fi
  GIT_ECHOES_VERSION=$(python3 scripts/release/versions.py --tag "$tag" "$root") || exit 1
  # The tag checked above is the one GoReleaser releases.
  export GORELEASER_CURRENT_TAG=$tag
fi
export GIT_ECHOES_VERSION

gr=$(scripts/release/goreleaser.sh)

# Reproducible bytes must not depend on the caller's environment: GoReleaser
# sets GOOS, GOARCH, GOAMD64 and GOARM64 per target itself; these others would
# change what the compiler emits. (The Go toolchain itself is the one of
# go.mod's `go` line under the default GOTOOLCHAIN=auto, or a newer local
# one: identical bytes need the same toolchain.)
unset GOFLAGS GOEXPERIMENT GO386 GOARM GOMIPS GOMIPS64 GOPPC64 GORISCV64 GOWASM

# GoReleaser reads the commit, its date and the tag only if `git ls-remote
# --get-url` answers; in a clone without a remote (a local mirror, a CI
# checkout made with `git init` + fetch) a snapshot would silently get the
# commit "none" and the date 0001-01-01. Nothing is published, so any URL
# will do: give it the public repository's, through the environment only.
if ! git ls-remote --get-url >/dev/null 2>&1; then
  n=${GIT_CONFIG_COUNT:-0}
  export "GIT_CONFIG_KEY_$n=remote.origin.url"
  export "GIT_CONFIG_VALUE_$n=https://github.com/git-echoes/git-echoes.git"
  export GIT_CONFIG_COUNT=$((n + 1))
fi

# The `before` hook writes the completions under build/release/; it is
# removed again however the run ends.
cleanup() {
  rm -rf "$root/build/release"
  rmdir "$root/build" 2>/dev/null || true
}
trap cleanup EXIT

"$gr" release --clean $snapshot --skip=publish,announce

shopt -s nullglob
artifacts=(dist/*.tar.gz dist/*.zip dist/SHA256SUMS)
if [ ${#artifacts[@]} -ne 8 ]; then
  echo "release: expected 7 archives and SHA256SUMS in dist/, found: ${artifacts[*]}" >&2
  exit 1
fi
if [ -n "$outdir" ] && [ "$outdir" != "$root/dist" ]; then
  rm -f "$outdir"/git-echoes_*.tar.gz "$outdir"/git-echoes_*.zip "$outdir"/SHA256SUMS
  cp -p "${artifacts[@]}" "$outdir"/
else
  outdir=$root/dist
fi
echo "release: wrote to $outdir:"
(cd "$outdir" && ls -l -- git-echoes_*.tar.gz git-echoes_*.zip SHA256SUMS) | sed 's/^/  /'
