// Package plugincheck holds the tests of the git-echoes agent plugins
// (plugin/, issue 23), which are JSON, Markdown and one POSIX shell launcher
// rather than Go: that the manifests of Claude Code and Codex and the
// marketplace entries agree with each other and with
// internal/buildinfo.ReleaseVersion, that every component they name exists,
// and that each hook and MCP server command, run exactly as the agent runs
// it, reaches the installed git-echoes binary or fails closed with the
// house exit-2 JSON error, writing nothing. The real clients are exercised
// by scripts/plugins-check.sh.
package plugincheck
