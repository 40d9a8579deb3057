#!/usr/bin/env bash
# Tests the release (issue 8): runs scripts/release.sh --snapshot twice on
# the current commit, each time into its own temporary folder, then checks
# the seven archives, their contents, modes, times and stamped versions, that
# SHA256SUMS verifies, and that both runs gave the same bytes
# (scripts/release/check_archives.py says what exactly).
#
#   scripts/release-check.sh
#
# Needs go, git, python3 and sha256sum; installs the pinned GoReleaser on
# first use (see scripts/release.sh). Exit 0 only if every check passed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for run in a b; do
  start=$SECONDS
  if ! scripts/release.sh --snapshot "$work/$run" >"$work/$run.log" 2>&1; then
    echo "release-check: run $run of scripts/release.sh --snapshot failed:" >&2
    sed 's/^/    /' "$work/$run.log" >&2
    echo "release-check: 0 passed, 1 failed"
    exit 1
  fi
  echo "release-check: run $run took $((SECONDS - start))s"
done

python3 scripts/release/check_archives.py "$root" "$work/a" "$work/b"
