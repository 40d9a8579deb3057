#!/usr/bin/env python3
"""A vault of real technical prose for the ranked-search benchmarks (issue 19).

The generated vault (cmd/vaultgen) draws every page from a 40-word
vocabulary, so every query matches almost every document. This script
builds pages from the Markdown documentation found in the Go module cache
(`go env GOMODCACHE`: the READMEs, design notes and changelogs of the
dependencies) and Go's own Markdown docs: each file is split at its level-1
and level-2 headings into sections, identical sections (several versions of
one module) are kept once, and each section becomes one page with the
frontmatter EchoesVault pages carry. The text is not committed: only this
generator is, and it gives the same pages for the same module cache.

  scripts/prose-corpus.py DIR [--pages N]      (default 2700)

Writes DIR/EchoesVault/pages/*.md (DIR must not have them yet; run
`git echoes init` in DIR after). Exit 3, with a message, when the source
holds too little Markdown (no Go, an empty module cache): the benchmark
skips this corpus then.
"""
import hashlib
import os
import re
import subprocess
import sys

MIN_CHARS = 400      # shorter sections are merged into the next
MAX_CHARS = 12000    # longer ones are cut at a paragraph
HEADING = re.compile(r"^#{1,2}[ \t]+\S", re.M)
CONFLICT = re.compile(r"^(<{7}|={7}|>{7})", re.M)  # a page must not look like a merge conflict
TYPES = ["architecture", "decision", "runbook", "pattern", "component"]
STACKS = ["go", "infra", "api", "data", "backend"]


def sources():
    roots = []
    for var in ("GOMODCACHE", "GOROOT"):
        try:
            out = subprocess.run(["go", "env", var], capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            continue
        if out and os.path.isdir(out):
            roots.append(out)
    files = []
    for root in roots:
        for d, dirs, names in os.walk(root):
            dirs[:] = sorted(x for x in dirs if x not in ("cache", "testdata", "vendor", "node_modules"))
            for n in sorted(names):
                if n.lower().endswith(".md"):
                    files.append(os.path.join(d, n))
    return files


def sections(text):
    starts = [m.start() for m in HEADING.finditer(text)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    out, carry = [], ""
    for a, b in zip(starts, starts[1:] + [len(text)]):
        s = carry + text[a:b]
        if len(s) < MIN_CHARS:
            carry = s
            continue
        carry = ""
        while len(s) > MAX_CHARS:
            cut = s.rfind("\n\n", 0, MAX_CHARS)
            cut = cut if cut > MIN_CHARS else MAX_CHARS
            out.append(s[:cut])
            s = s[cut:]
        out.append(s)
    if len(carry) >= MIN_CHARS:
        out.append(carry)
    return out


def summary(sec):
    for line in sec.splitlines():
        t = line.strip().lstrip("#>*- ").strip()
        if len(t) >= 20 and not t.startswith(("```", "|", "[!", "<", "!")):
            t = re.sub(r"\s+", " ", t).replace(":", " -").replace("#", "")
            return t[:150].strip() or "Notes"
    return "Notes"


def main():
    args = sys.argv[1:]
    n = 2700
    if "--pages" in args:
        i = args.index("--pages")
        n = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    pages = os.path.join(args[0], "EchoesVault", "pages")
    if os.path.isdir(pages) and os.listdir(pages):
        print("prose-corpus: %s already has pages" % pages, file=sys.stderr)
        return 2
    seen, chosen = set(), []
    for path in sources():
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read().replace("\r\n", "\n")
        except (OSError, UnicodeDecodeError):
            continue
        for sec in sections(text):
            h = hashlib.sha256(sec.encode()).digest()
            if h in seen or CONFLICT.search(sec):
                continue
            seen.add(h)
            chosen.append(sec)
            if len(chosen) == n:
                break
        if len(chosen) == n:
            break
    if len(chosen) < n // 2:
        print("prose-corpus: only %d sections of Markdown in the Go module cache and GOROOT (want %d): skipped" % (len(chosen), n), file=sys.stderr)
        return 3
    os.makedirs(pages, exist_ok=True)
    for i, sec in enumerate(chosen):
        body = sec.strip("\n") + "\n"
        if not body.startswith("#"):
            body = "# Notes %d\n\n" % (i + 1) + body
        with open(os.path.join(pages, "doc-%05d.md" % (i + 1)), "w", encoding="utf-8") as f:
            f.write("---\ntype: %s\nstack: %s\nstatus: active\nsummary: %s\n---\n\n%s" % (
                TYPES[i % len(TYPES)], STACKS[i % len(STACKS)], summary(sec), body))
    print("prose-corpus: %d pages, %d MB in %s" % (len(chosen), sum(len(s) for s in chosen) // 1000000, pages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
