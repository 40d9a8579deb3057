#!/usr/bin/env python3
"""The one version of a git-echoes release (issue 23).

    versions.py [--tag TAG] [REPO_ROOT]

Reads ReleaseVersion from internal/buildinfo/release.go and the version of
every agent plugin manifest (plugin/.claude-plugin/plugin.json,
plugin/.codex-plugin/plugin.json, the git-echoes entry of
.claude-plugin/marketplace.json). Prints the version and exits 0 when all
agree and, with --tag, when TAG is v<version>; otherwise prints one line per
mismatch on stderr and exits 1. scripts/release.sh runs it before building.
"""

import json
import os
import re
import sys

MANIFESTS = [
    ("plugin/.claude-plugin/plugin.json", lambda d: d.get("version")),
    ("plugin/.codex-plugin/plugin.json", lambda d: d.get("version")),
    (".claude-plugin/marketplace.json",
     lambda d: next((p.get("version") for p in d.get("plugins", [])
                     if p.get("name") == "git-echoes"), None)),
]
CONST = re.compile(r'^const ReleaseVersion = "([0-9]+\.[0-9]+\.[0-9]+)"$', re.M)


def main():
    args = sys.argv[1:]
    tag = None
    if len(args) >= 2 and args[0] == "--tag":
        tag = args[1]
        args = args[2:]
    if len(args) > 1 or (args and args[0].startswith("-")):
        print("usage: versions.py [--tag TAG] [REPO_ROOT]", file=sys.stderr)
        return 2
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "..")
    problems = []
    with open(os.path.join(root, "internal/buildinfo/release.go"), encoding="utf-8") as f:
        m = CONST.search(f.read())
    if not m:
        print("versions: no `const ReleaseVersion = \"X.Y.Z\"` in internal/buildinfo/release.go",
              file=sys.stderr)
        return 1
    version = m.group(1)
    for path, get in MANIFESTS:
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                got = get(json.load(f))
        except (OSError, ValueError) as e:
            problems.append(f"{path}: cannot read: {e}")
            continue
        if got != version:
            problems.append(f"{path}: version {got!r}, internal/buildinfo.ReleaseVersion is {version!r}")
    if tag is not None and tag != "v" + version:
        problems.append(f"tag {tag!r} is not v{version} (internal/buildinfo.ReleaseVersion)")
    for p in problems:
        print(f"versions: {p}", file=sys.stderr)
    if problems:
        return 1
    print(version)
    return 0


if __name__ == "__main__":
    sys.exit(main())
