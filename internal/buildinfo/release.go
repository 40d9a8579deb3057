package buildinfo

// ReleaseVersion is the version of the release being prepared (issue 23):
// one version for the binary, the release archives and the agent plugins.
//
//   - the plugin manifests carry it: plugin/.claude-plugin/plugin.json,
//     plugin/.codex-plugin/plugin.json and the git-echoes entry of
//     .claude-plugin/marketplace.json (internal/plugincheck's test fails
//     when one differs);
//   - scripts/release.sh refuses a tag other than v<ReleaseVersion> (and
//     manifests that disagree), so a release binary's stamped Version and
//     the archive names are this version; a snapshot is
//     <ReleaseVersion>-snapshot-<commit> (scripts/release/versions.py).
//
// To release: set it and the manifests to the new version in one commit,
// then tag that commit v<ReleaseVersion>. It is a constant, unlike Version,
// because nothing stamps it: it is what the stamps are checked against.
const ReleaseVersion = "0.1.0"
