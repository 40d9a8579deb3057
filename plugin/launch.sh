#!/bin/sh
# The one launcher of the git-echoes agent plugins (Claude Code and Codex):
# every hook and MCP server the plugins declare runs
#
#   sh <plugin root>/launch.sh <git-echoes arguments...>
#
# It runs the installed git-echoes binary ($GIT_ECHOES_BIN when set, else
# `git-echoes` on PATH) with the same arguments, standard streams and exit
# status (exec: the binary replaces this shell). The plugins bundle no
# engine: everything they write goes through the binary's own locked,
# atomic writers, and this script itself never writes a file.
#
# When the binary is missing it fails closed, like the project runtime
# (.echoes-vault/echoes_vault.py): one line of JSON on stderr, the house
# error shape {"ok": false, "error": ...}, nothing on stdout, exit 2. Claude
# Code shows the stderr of a SessionStart hook that exits 2 to the user, and
# the agents log an MCP server's stderr when it does not start.
#
# Codex substitutes no plugin root into an MCP server's arguments, so
# mcp/codex.json carries these same lines inline (sh -c);
# internal/plugincheck keeps the two in step.
#
# GIT_ECHOES_SESSION_START=off turns the SessionStart hook off without
# touching the rest of the plugin: the hook then gives the answer of a
# repository without a vault, {"continue": true, "suppressOutput": true}.
if [ "${1:-}" = hook ] && [ "${2:-}" = session-start ] && [ "${GIT_ECHOES_SESSION_START:-}" = off ]; then
  printf '%s\n' '{"continue": true, "suppressOutput": true}'
  exit 0
fi
bin=${GIT_ECHOES_BIN:-}
if [ -z "$bin" ]; then
  bin=$(command -v git-echoes 2>/dev/null) || bin=
fi
if [ -z "$bin" ] || [ -d "$bin" ] || [ ! -x "$bin" ]; then
  printf '%s\n' '{"ok": false, "error": "git-echoes is not installed: put the git-echoes binary on PATH (https://github.com/git-echoes/git-echoes#install) or set GIT_ECHOES_BIN, then restart the session"}' >&2
  exit 2
fi
exec "$bin" "$@"
