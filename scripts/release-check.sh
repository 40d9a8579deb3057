#!/usr/bin/env bash
# Tests the release (issue 8): `goreleaser check` on .goreleaser.yaml, then
# scripts/release.sh --snapshot twice on the current commit, each time into
# its own temporary folder; then checks the seven archives, their contents,
# modes, times and stamped versions, that SHA256SUMS verifies, and that both
# runs gave the same bytes (scripts/release/check_archives.py says what
# exactly).
#
#   scripts/release-check.sh
#
# Needs go, git, python3 and sha256sum; installs the pinned GoReleaser on
# first use (scripts/release/goreleaser.sh). Exit 0 only if every check passed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The configuration first: `goreleaser check` also fails on deprecated keys.
gr=$(scripts/release/goreleaser.sh)
if ! "$gr" check >"$work/check.log" 2>&1; then
  echo "FAIL  goreleaser check .goreleaser.yaml:" >&2
  sed 's/^/    /' "$work/check.log" >&2
  echo "release-check: 0 passed, 1 failed"
  exit 1
fi
echo "ok    goreleaser check .goreleaser.yaml"

for run in a b; do
  start=$SECONDS
  if ! GORELEASER=$gr scripts/release.sh --snapshot "$work/$run" >"$work/$run.log" 2>&1; then
    echo "release-check: run $run of scripts/release.sh --snapshot failed:" >&2
    sed 's/^/    /' "$work/$run.log" >&2
    echo "release-check: 1 passed, 1 failed"
    exit 1
  fi
  echo "release-check: run $run took $((SECONDS - start))s"
done

# 1: the goreleaser check above.
python3 scripts/release/check_archives.py --passed 1 "$root" "$work/a" "$work/b"

# The GitHub Action's installer and the GitLab template against these
# archives and their SHA256SUMS, served from loopback (issue 20): the
# right archive for each runner, verified, cached; a tampered one refused.
echo "release-check: the forge installers against the snapshot archives"
GIT_ECHOES_RELEASE_DIR="$work/a" go test -count=1 -run 'TestInstall|TestGitLabTemplate' ./internal/forgetest
