#!/usr/bin/env bash
# Writes the shell completion scripts that the release archives ship, by
# running `git-echoes completion SHELL` on a binary built for this host
# (issue 8: completions come from the binary itself, so they cannot drift
# from its commands and flags). Run by GoReleaser as a `before` hook.
#
#   scripts/release/completions.sh OUTDIR
#
# OUTDIR is emptied and receives:
#   git-echoes.bash   bash (defines _git_echoes for Git's own completion)
#   _git-echoes       zsh (the name zsh's fpath lookup expects)
#   git-echoes.fish   fish
#   git-echoes.ps1    PowerShell
set -euo pipefail
cd "$(dirname "$0")/../.."

out=${1:?usage: scripts/release/completions.sh OUTDIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Built for the host whatever GOOS/GOARCH the caller exported: it has to run
# here. The completion text does not depend on the target.
env -u GOOS -u GOARCH CGO_ENABLED=0 go build -trimpath -o "$tmp/git-echoes" ./cmd/git-echoes

rm -rf "$out"
mkdir -p "$out"
gen() { # gen SHELL FILE
  "$tmp/git-echoes" completion "$1" >"$out/$2"
  if [ ! -s "$out/$2" ]; then
    echo "completions: 'git-echoes completion $1' printed nothing" >&2
    exit 1
  fi
}
gen bash git-echoes.bash
gen zsh _git-echoes
gen fish git-echoes.fish
gen powershell git-echoes.ps1
