#!/usr/bin/env python3
"""EchoesVault Protocol 1.0.0 portable runtime: the git-echoes launcher.

Adapters run `python3 .echoes-vault/echoes_vault.py --workspace . <command>`.
This file does no vault work itself: it hands every argument, the standard
streams and the exit code to the git-echoes binary, a native Protocol 1.0.0
writer. Set ECHOES_VAULT_BIN to choose the binary; otherwise `git-echoes` is
looked up on PATH. When no binary can be run, it fails closed with the
protocol's error shape (one compact JSON line on stderr, exit code 2).

Version lines: other engines recognise a runtime by the whole lines
ENGINE_VERSION and PROTOCOL_VERSION below. ENGINE_VERSION deliberately equals
the reference engine's 1.1.1. Consequence: the reference engine's own
init/upgrade sees the same version with different bytes and replaces this
launcher with its own source. That is safe, because the reference runtime is
a conforming writer of the same protocol, and git-echoes never overwrites it
back. A higher version would keep the reference from replacing this file, but
its health report would then flag the runtime as outdated forever; a lower
one would make it refuse every mutation through this file.

Do not edit: `git echoes upgrade` rewrites this file (it recognises it by the
GIT_ECHOES_LAUNCHER line).
"""

import json
import os
import subprocess
import sys

ENGINE_VERSION = "1.1.1"
PROTOCOL_VERSION = "1.0.0"
GIT_ECHOES_LAUNCHER = True

INSTALL_HINT = (
    "install it with `go install github.com/git-echoes/git-echoes/cmd/git-echoes@latest` "
    "and put it on PATH, or set ECHOES_VAULT_BIN to its path"
)


def fail(detail):
    message = "git-echoes is not installed: %s; %s" % (detail, INSTALL_HINT)
    sys.stderr.write(json.dumps({"ok": False, "error": message}, ensure_ascii=False) + "\n")
    sys.stderr.flush()
    return 2


def main():
    binary = os.environ.get("ECHOES_VAULT_BIN") or "git-echoes"
    argv = [binary] + sys.argv[1:]
    if os.name == "nt":
        # Windows has no exec that keeps the process identity: run the
        # binary as a child with inherited streams and return its code.
        try:
            return subprocess.call(argv)
        except OSError as exc:
            return fail("cannot run %s (%s)" % (binary, exc.strerror or exc))
    try:
        # Replacing this process passes stdin, stdout, stderr and the exit
        # code through untouched, without buffering anything here.
        os.execvp(binary, argv)
    except OSError as exc:
        return fail("cannot run %s (%s)" % (binary, exc.strerror or exc))
    return 2


if __name__ == "__main__":
    sys.exit(main())
