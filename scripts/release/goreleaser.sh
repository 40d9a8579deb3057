#!/usr/bin/env bash
# Prints the path of the GoReleaser that the release uses, installing the
# pinned version from the Go module proxy first if this machine lacks it.
#
#   scripts/release/goreleaser.sh
#
# GORELEASER=path in the environment: print that instead (no install).
# The binary is cached in ${XDG_CACHE_HOME:-~/.cache}/git-echoes-release/
# under the version's name, so changing the pin installs the new one.
set -euo pipefail

# Pinned: v2.15.1 is the newest release whose module builds with the Go of
# go.mod from the module proxy (newer ones need a newer Go). `go install`
# compiles it once: 2m33s wall, 3m09s user from a cold build cache on a
# 2-core machine.
version=v2.15.1

if [ -n "${GORELEASER:-}" ]; then
  printf '%s\n' "$GORELEASER"
  exit 0
fi
bindir=${XDG_CACHE_HOME:-$HOME/.cache}/git-echoes-release/goreleaser-$version
if [ ! -x "$bindir/goreleaser" ]; then
  echo "release: installing goreleaser $version into $bindir" >&2
  mkdir -p "$bindir"
  # From outside the repository, so go.mod is neither read nor touched, and
  # with the caller's GOFLAGS cleared (-mod=vendor and the like would break
  # a module-mode install).
  (cd "$bindir" && GOBIN=$bindir GOFLAGS='' go install "github.com/goreleaser/goreleaser/v2@$version") >&2
fi
printf '%s\n' "$bindir/goreleaser"
