#!/usr/bin/env python3
"""EchoesVault Protocol 1.0.0 portable runtime: the git-echoes launcher.

Adapters run `python3 .echoes-vault/echoes_vault.py --workspace . <command>`.
This file does no vault work itself: it hands every argument, the standard
streams and the exit code to the git-echoes binary, a native Protocol 1.0.0
writer. Set ECHOES_VAULT_BIN to choose the binary; otherwise `git-echoes` is
looked up on PATH (`git-echoes.exe` on Windows). When no binary can be run,
it fails closed with the protocol's error shape (one compact JSON line on
stderr, exit code 2).

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


def find_windows(binary, path):
    """The program to start on Windows for `binary`, or None.

    A path (C:\\Tools\\git-echoes.exe, tools/git-echoes) is used as given.
    A bare name is looked up in the directories of PATH, adding .exe, and
    only there: CreateProcess and shutil.which would search the current
    directory first, which is the workspace, so a repository could plant its
    own git-echoes.exe and have every adapter run it.
    """
    if "/" in binary or "\\" in binary or ":" in binary:
        return binary
    name = binary if binary.lower().endswith(".exe") else binary + ".exe"
    for directory in path.split(";"):
        directory = directory.strip().strip('"')
        if directory:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                return candidate
    return None


def exit_status(code):
    """An exit status for sys.exit: Windows codes are 32-bit unsigned
    (0xC000013A after Ctrl+C), which sys.exit takes as a signed C long."""
    return code - (1 << 32) if code > 0x7FFFFFFF else code


def std_stream(fd):
    """fd when it is an open descriptor, else None (a GUI or detached run)."""
    try:
        os.fstat(fd)
    except OSError:
        return None
    return fd


def run_child(argv):
    """Windows has no exec that keeps the process identity: run the binary as
    a child on this process's standard streams, passed explicitly so that
    pipes reach it too, and return its exit code."""
    try:
        child = subprocess.Popen(argv, stdin=std_stream(0), stdout=std_stream(1), stderr=std_stream(2))
    except OSError as exc:
        return fail("cannot run %s (%s)" % (argv[0], exc.strerror or exc))
    while True:
        try:
            return exit_status(child.wait())
        except KeyboardInterrupt:
            # The console delivers Ctrl+C to the child as well: let it finish
            # (it may be releasing the vault lock) and report its own code.
            continue


def main(args=None, environ=None, windows=None):
    args = sys.argv[1:] if args is None else args
    environ = os.environ if environ is None else environ
    windows = os.name == "nt" if windows is None else windows
    binary = environ.get("ECHOES_VAULT_BIN") or "git-echoes"
    if windows:
        program = find_windows(binary, environ.get("PATH", ""))
        if program is None:
            return fail("cannot run %s (not found on PATH)" % binary)
        return run_child([program] + list(args))
    try:
        # Replacing this process passes stdin, stdout, stderr and the exit
        # code through untouched, without buffering anything here.
        os.execvp(binary, [binary] + list(args))
    except OSError as exc:
        return fail("cannot run %s (%s)" % (binary, exc.strerror or exc))
    return 2


if __name__ == "__main__":
    sys.exit(main())
