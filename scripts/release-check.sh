#!/usr/bin/env bash
# Tests the release (issue 8): `goreleaser check` on .goreleaser.yaml, then
# scripts/release.sh --snapshot twice on the current commit, each time into
# its own temporary folder; then checks the seven archives, their contents,
# modes, times and stamped versions, that SHA256SUMS verifies, and that both
# runs gave the same bytes (scripts/release/check_archives.py says what
# exactly). Before building, it checks in a throwaway clone that
# scripts/release.sh refuses a tag or a plugin manifest whose version is not
# internal/buildinfo.ReleaseVersion (issue 23), and the snapshot's version is
# then checked to be that version too.
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

# One version (issue 23): scripts/release.sh must refuse, before building
# anything, a tag that is not v<internal/buildinfo.ReleaseVersion> and plugin
# manifests that disagree with it. Tried in a throwaway clone of HEAD.
vpassed=0
vfail() { echo "FAIL  $*" >&2; echo "release-check: $((1 + vpassed)) passed, 1 failed"; exit 1; }
version=$(python3 scripts/release/versions.py "$root") || vfail "scripts/release/versions.py on HEAD"
git clone -q --no-hardlinks "$root" "$work/vclone"
git -C "$work/vclone" -c user.name=release-check -c user.email=release-check@invalid \
  tag -a -m mismatch v9.9.9 HEAD
if (cd "$work/vclone" && GORELEASER=/nonexistent scripts/release.sh) >"$work/v.log" 2>&1; then
  vfail "scripts/release.sh accepted tag v9.9.9 for version $version"
fi
grep -q "tag 'v9.9.9' is not v$version" "$work/v.log" || vfail "tag mismatch message: $(cat "$work/v.log")"
[ ! -e "$work/vclone/dist" ] || vfail "scripts/release.sh built into dist/ despite the tag mismatch"
echo "ok    scripts/release.sh refuses tag v9.9.9 (ReleaseVersion $version), before building"
vpassed=$((vpassed + 1))
git -C "$work/vclone" tag -d v9.9.9 >/dev/null
git -C "$work/vclone" -c user.name=release-check -c user.email=release-check@invalid \
  tag -a -m match "v$version" HEAD
python3 scripts/release/versions.py --tag "v$version" "$work/vclone" >/dev/null ||
  vfail "versions.py refused the matching tag v$version"
echo "ok    the matching tag v$version passes the version check"
vpassed=$((vpassed + 1))
sed -i 's/"version": "'"$version"'"/"version": "0.0.0-drift"/' "$work/vclone/plugin/.codex-plugin/plugin.json"
if (cd "$work/vclone" && GORELEASER=/nonexistent scripts/release.sh --snapshot) >"$work/v.log" 2>&1; then
  vfail "scripts/release.sh --snapshot accepted a Codex manifest at 0.0.0-drift"
fi
grep -q "plugin/.codex-plugin/plugin.json: version '0.0.0-drift'" "$work/v.log" ||
  vfail "manifest mismatch message: $(cat "$work/v.log")"
echo "ok    scripts/release.sh --snapshot refuses a plugin manifest at another version"
vpassed=$((vpassed + 1))
rm -rf "$work/vclone"

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

# 1 + vpassed: the goreleaser check and the version checks above.
python3 scripts/release/check_archives.py --passed $((1 + vpassed)) "$root" "$work/a" "$work/b"

# The GitHub Action's installer and the GitLab template against these
# archives and their SHA256SUMS, served from loopback (issue 20): the
# right archive for each runner, verified, cached; a tampered one refused.
echo "release-check: the forge installers against the snapshot archives"
GIT_ECHOES_RELEASE_DIR="$work/a" go test -count=1 -run 'TestInstall|TestGitLabTemplate' ./internal/forgetest
