#!/usr/bin/env bash
# One pull-request comment, updated in place (issue 20): finds the comment
# that carries the hidden marker, written by GE_COMMENT_AUTHOR, and edits it;
# creates it when there is none. Called by scripts/forge/github.sh.
#
# Environment: GE_PR (number), GE_BODY (file), GE_MARKER, GE_TOKEN,
# GE_COMMENT_AUTHOR (default github-actions[bot]; empty: any author),
# GE_HEAD_REPO and GE_BASE_REPO (owner/name, to tell a fork), GITHUB_API_URL
# (default https://api.github.com), GITHUB_REPOSITORY.
#
# Prints created, updated or skipped on stdout; says why on stderr. Always
# exits 0: a comment that cannot be written never fails the gate.
set -uo pipefail

say() { printf 'git-echoes comment: %s\n' "$*" >&2; }
skip() { say "skipped: $*"; echo skipped; exit 0; }

api=${GITHUB_API_URL:-https://api.github.com}
api=${api%/}
repo=${GITHUB_REPOSITORY:-${GE_BASE_REPO:-}}
author=${GE_COMMENT_AUTHOR-github-actions[bot]}
[ -n "$repo" ] || skip "GITHUB_REPOSITORY is not set"
[ -n "${GE_TOKEN:-}" ] || skip "no token (the action's token input is empty); the report is in the job summary"
command -v curl >/dev/null 2>&1 || skip "curl is not on PATH"
command -v jq >/dev/null 2>&1 || skip "jq is not on PATH"
fork=
if [ -n "${GE_HEAD_REPO:-}" ] && [ -n "${GE_BASE_REPO:-}" ] && [ "$GE_HEAD_REPO" != "$GE_BASE_REPO" ]; then
  fork=" (a pull request from the fork $GE_HEAD_REPO gets a read-only token)"
fi

work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/git-echoes-comment.XXXXXX")
trap 'rm -rf "$work"' EXIT

call() { # call METHOD URL [BODYFILE]: the HTTP status on stdout, the answer in $work/answer
  local data=()
  [ -n "${3:-}" ] && data=(--data-binary "@$3" -H 'Content-Type: application/json')
  curl -sS -o "$work/answer" -w '%{http_code}' -X "$1" \
    -H "Authorization: Bearer $GE_TOKEN" -H 'Accept: application/vnd.github+json' \
    -H 'X-GitHub-Api-Version: 2022-11-28' ${data[@]+"${data[@]}"} "$2" 2>"$work/curl.err" || echo 000
}
refused() { # refused STATUS WHAT
  case $1 in
    401|403|404) skip "the token cannot $2 on pull request #$GE_PR (HTTP $1)$fork; it needs permissions: pull-requests: write. The report is in the job summary" ;;
    000) skip "cannot reach $api: $(head -n 1 "$work/curl.err")" ;;
    *) skip "$2: HTTP $1 from $api: $(head -c 200 "$work/answer" | tr '\n' ' ')" ;;
  esac
}

# The marked comment: pages of 100 until an empty page (at most 50 pages).
id=
for page in $(seq 1 50); do
  code=$(call GET "$api/repos/$repo/issues/$GE_PR/comments?per_page=100&page=$page")
  [ "$code" = 200 ] || refused "$code" "read the comments"
  n=$(jq 'length' "$work/answer")
  id=$(jq -r --arg m "$GE_MARKER" --arg a "$author" \
    '[.[] | select((.body // "") | startswith($m)) | select($a == "" or .user.login == $a) | .id] | first // empty' "$work/answer")
  [ -n "$id" ] && break
  [ "$n" -lt 100 ] && break
done

jq -Rs '{body: .}' <"$GE_BODY" >"$work/body.json"
if [ -n "$id" ]; then
  code=$(call PATCH "$api/repos/$repo/issues/comments/$id" "$work/body.json")
  [ "$code" = 200 ] || refused "$code" "update comment $id"
  say "updated comment $id on pull request #$GE_PR"
  echo updated
else
  code=$(call POST "$api/repos/$repo/issues/$GE_PR/comments" "$work/body.json")
  [ "$code" = 201 ] || refused "$code" "comment"
  say "commented on pull request #$GE_PR"
  echo created
fi
