#!/usr/bin/env python3
"""Checks two release outputs of scripts/release.sh --snapshot (issue 8).

    check_archives.py [--passed N] REPO_ROOT DIR_A DIR_B

DIR_A and DIR_B come from two runs on the same commit. Checked:
  - DIR_A holds exactly the seven archives (.tar.gz, .zip for Windows) and
    SHA256SUMS, one version in every name, the snapshot version of HEAD;
  - SHA256SUMS lists exactly those archives, with their real digests;
  - each archive holds one top-level folder with exactly: the binary
    (git-echoes, git-echoes.exe on Windows), README.md, LICENSE* when the
    repository has it, man/man1/ with every docs/man/*.1 (git-echoes.1 at
    least), and completions/ with the bash, zsh, fish and PowerShell scripts;
    README, LICENSE and man pages byte-equal to the repository's, the
    completions non-empty and the same in every archive;
  - every entry has the commit time as mtime, root ownership, mode 0755 for
    the binary and 0644 for the rest (tar) / the same Unix modes (zip);
  - each binary was built for its target with -trimpath, -buildvcs=false
    and CGO_ENABLED=0 (read back with `go version -m`), carries the version,
    commit and commit date stamped into internal/buildinfo, and (ELF) has
    neither symbol table nor DWARF (-s -w);
  - the binary for this host runs, and its `completion SHELL` output is
    what the archives ship (reported as skipped on a host that is none of
    the seven targets);
  - DIR_B is byte-for-byte identical to DIR_A (reproducible build).

Prints one line per check and closes with "release-check: N passed, N failed"
(N passed starting from --passed, the checks the caller ran before); exits 1
if any check failed.
"""

import glob
import hashlib
import io
import os
import platform
import re
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

TARGETS = [
    ("linux", "amd64"), ("linux", "arm64"),
    ("darwin", "amd64"), ("darwin", "arm64"),
    ("windows", "amd64"), ("windows", "arm64"),
    ("freebsd", "amd64"),
]
# What scripts/release/completions.sh writes: file name -> shell.
COMPLETIONS = {
    "git-echoes.bash": "bash",
    "_git-echoes": "zsh",
    "git-echoes.fish": "fish",
    "git-echoes.ps1": "powershell",
}
BUILDINFO = "github.com/git-echoes/git-echoes/internal/buildinfo"

passed = 0
failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {what}")
    else:
        failed += 1
        print(f"FAIL  {what}" + (f": {detail}" if detail else ""))
    return ok


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def host_target():
    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "amd64": "amd64",
            "aarch64": "arm64", "arm64": "arm64"}.get(machine)
    return (sys.platform if sys.platform != "win32" else "windows", arch)


class Entry:
    def __init__(self, name, mode, mtime, uid, gid, uname, gname, data, isdir):
        self.name, self.mode, self.mtime = name, mode, mtime
        self.uid, self.gid, self.uname, self.gname = uid, gid, uname, gname
        self.data, self.isdir = data, isdir


def read_tar(path):
    entries = []
    with tarfile.open(path, "r:gz") as tf:
        for m in tf.getmembers():
            data = tf.extractfile(m).read() if m.isfile() else None
            entries.append(Entry(m.name, m.mode, m.mtime, m.uid, m.gid,
                                 m.uname, m.gname, data, m.isdir()))
    return entries


def zip_utc_mtime(info):
    """The Unix mtime of the extended-timestamp extra field (0x5455) Go
    writes next to the MS-DOS time, or None."""
    extra = info.extra
    i = 0
    while i + 4 <= len(extra):
        tag = int.from_bytes(extra[i:i + 2], "little")
        size = int.from_bytes(extra[i + 2:i + 4], "little")
        body = extra[i + 4:i + 4 + size]
        if tag == 0x5455 and size >= 5 and body[0] & 1:
            return int.from_bytes(body[1:5], "little")
        i += 4 + size
    return None


def read_zip(path):
    entries = []
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            isdir = info.is_dir()
            data = None if isdir else zf.read(info)
            mode = (info.external_attr >> 16) & 0o7777 if info.create_system == 3 else None
            entries.append(Entry(info.filename, mode, info, None, None, None,
                                 None, data, isdir))
    return entries


def go_version_m(data, name):
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, name)
        with open(p, "wb") as f:
            f.write(data)
        r = subprocess.run(["go", "version", "-m", p], capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr


def build_settings(out):
    settings = {}
    for line in out.splitlines():
        parts = line.strip().split("\t")
        if len(parts) >= 2 and parts[0] == "build" and "=" in parts[1]:
            k, v = parts[1].split("=", 1)
            settings[k] = v
    return settings


def elf_sections(data):
    """Section names of a 64-bit little-endian ELF file, or None."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    shoff = int.from_bytes(data[0x28:0x30], "little")
    shentsize = int.from_bytes(data[0x3A:0x3C], "little")
    shnum = int.from_bytes(data[0x3C:0x3E], "little")
    shstrndx = int.from_bytes(data[0x3E:0x40], "little")

    def sh(i):
        b = data[shoff + i * shentsize: shoff + (i + 1) * shentsize]
        return int.from_bytes(b[0:4], "little"), int.from_bytes(b[0x18:0x20], "little")

    _, stroff = sh(shstrndx)
    names = []
    for i in range(shnum):
        name_off, _ = sh(i)
        start = stroff + name_off
        names.append(data[start:data.index(b"\0", start)].decode())
    return names


def run_completions(data, name):
    """Runs the host binary's `completion SHELL` in an empty, isolated
    environment and returns {file name: output bytes}."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, name)
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, 0o755)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": tmp,
               "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
        for fname, shell in COMPLETIONS.items():
            r = subprocess.run([p, "completion", shell], cwd=tmp, env=env,
                               capture_output=True)
            out[fname] = r.stdout if r.returncode == 0 else None
    return out


def main():
    global passed
    args = sys.argv[1:]
    if len(args) == 5 and args[0] == "--passed":
        # checks the caller already ran and counted as passed
        passed = int(args[1])
        args = args[2:]
    if len(args) != 3:
        sys.exit("usage: check_archives.py [--passed N] REPO_ROOT DIR_A DIR_B")
    root, dir_a, dir_b = args
    full = git(root, "rev-parse", "HEAD")
    ctime = int(git(root, "log", "-1", "--format=%ct", "HEAD"))
    # GoReleaser's {{ .CommitDate }}: RFC 3339 in UTC.
    cdate = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ctime))

    # The seven archives, one version.
    names = sorted(os.listdir(dir_a))
    archive_re = re.compile(r"^git-echoes_(.+)_([a-z0-9]+)_([a-z0-9]+)\.(tar\.gz|zip)$")
    found = {}
    versions = set()
    for n in names:
        m = archive_re.match(n)
        if m:
            versions.add(m.group(1))
            found[(m.group(2), m.group(3))] = n
    extra = [n for n in names if n != "SHA256SUMS" and not archive_re.match(n)]
    check(not extra, "no files besides archives and SHA256SUMS", " ".join(extra))
    check(sorted(found) == sorted(TARGETS), "seven archives, one per target",
          f"found {sorted(found)}")
    for (goos, goarch), n in found.items():
        want = "zip" if goos == "windows" else "tar.gz"
        check(n.endswith("." + want), f"{n} is a .{want}")
    check(len(versions) == 1, "one version in every archive name", str(versions))
    version = versions.pop() if len(versions) == 1 else ""
    m = re.match(r"^(\d+\.\d+\.\d+)-snapshot-([0-9a-f]{7,40})$", version)
    check(bool(m) and full.startswith(m.group(2)),
          f"version {version!r} is the snapshot version of HEAD {full[:12]}")
    # One version (issue 23): the snapshot is one of the release being
    # prepared, the version the plugin manifests carry.
    release = subprocess.run(
        [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "versions.py"), root],
        capture_output=True, text=True)
    check(release.returncode == 0 and bool(m) and m.group(1) == release.stdout.strip(),
          f"version {version!r} is internal/buildinfo.ReleaseVersion and the plugin manifests' version",
          (release.stderr or release.stdout).strip())

    # SHA256SUMS.
    sums_path = os.path.join(dir_a, "SHA256SUMS")
    if check(os.path.isfile(sums_path), "SHA256SUMS exists"):
        with open(sums_path) as f:
            lines = f.read().splitlines()
        listed = {}
        for line in lines:
            mm = re.match(r"^([0-9a-f]{64})  (\S+)$", line)
            if check(bool(mm), f"SHA256SUMS line is '<sha256>  <name>': {line!r}"):
                listed[mm.group(2)] = mm.group(1)
        check(sorted(listed) == sorted(found.values()),
              "SHA256SUMS lists exactly the archives", f"lists {sorted(listed)}")
        for n, digest in sorted(listed.items()):
            p = os.path.join(dir_a, n)
            check(os.path.isfile(p) and sha256(p) == digest, f"{n} matches its SHA256SUMS line")
        r = subprocess.run(["sha256sum", "-c", "--strict", "SHA256SUMS"], cwd=dir_a,
                           capture_output=True, text=True)
        check(r.returncode == 0, "sha256sum -c SHA256SUMS", r.stdout + r.stderr)

    # Files from the repository that every archive must carry unchanged.
    docs = {"README.md": os.path.join(root, "README.md")}
    for p in sorted(glob.glob(os.path.join(root, "LICENSE*"))):
        docs[os.path.basename(p)] = p
    man = sorted(glob.glob(os.path.join(root, "docs", "man", "*.1")))
    check(os.path.join(root, "docs", "man", "git-echoes.1") in man,
          "the repository has docs/man/git-echoes.1")
    for p in man:
        docs["man/man1/" + os.path.basename(p)] = p
    for rel in COMPLETIONS:
        docs["completions/" + rel] = None  # generated: checked below

    completions_seen = {}
    host = host_target()
    ran_host = False
    for (goos, goarch) in TARGETS:
        n = found.get((goos, goarch))
        if not n:
            continue
        path = os.path.join(dir_a, n)
        prefix = n[: -len(".tar.gz")] if n.endswith(".tar.gz") else n[: -len(".zip")]
        exe = "git-echoes.exe" if goos == "windows" else "git-echoes"
        try:
            entries = read_zip(path) if n.endswith(".zip") else read_tar(path)
        except Exception as e:  # a corrupt archive is a failed check, not a crash
            check(False, f"{n} can be read", str(e))
            continue
        files = {e.name: e for e in entries if not e.isdir}
        dirs = [e.name.rstrip("/") for e in entries if e.isdir]
        want = sorted([f"{prefix}/{exe}"] + [f"{prefix}/{rel}" for rel in docs])
        check(sorted(files) == want, f"{n}: exactly the expected files",
              f"\n      got  {sorted(files)}\n      want {want}")
        check(all(d == prefix or d.startswith(prefix + "/") for d in dirs),
              f"{n}: only folders under {prefix}/", str(dirs))

        for name, e in sorted(files.items()):
            rel = name[len(prefix) + 1:]
            want_mode = 0o755 if rel == exe else 0o644
            if n.endswith(".zip"):
                info = e.mtime
                dos = tuple(info.date_time)
                # MS-DOS times have a 2-second resolution.
                want_dos = time.gmtime(ctime - ctime % 2)[:6]
                check(dos == want_dos and zip_utc_mtime(info) == ctime,
                      f"{name}: mtime is the commit time",
                      f"dos {dos} utc {zip_utc_mtime(info)}, want {want_dos} {ctime}")
                check(e.mode == want_mode, f"{name}: mode {want_mode:o}",
                      "none" if e.mode is None else f"{e.mode:o}")
            else:
                check(e.mtime == ctime, f"{name}: mtime is the commit time",
                      f"{e.mtime} != {ctime}")
                check(e.mode == want_mode, f"{name}: mode {want_mode:o}", f"{e.mode:o}")
                check((e.uid, e.gid, e.uname, e.gname) == (0, 0, "root", "root"),
                      f"{name}: owned by root:root (0:0)",
                      f"{e.uid}:{e.gid} {e.uname}:{e.gname}")
            if rel in docs and docs[rel] is not None:
                with open(docs[rel], "rb") as f:
                    check(e.data == f.read(), f"{name}: same bytes as the repository's {rel}")
            if rel.startswith("completions/"):
                check(bool(e.data), f"{name}: not empty")
                completions_seen.setdefault(rel, set()).add(e.data)

        binary = files.get(f"{prefix}/{exe}")
        if binary is None:
            continue
        rc, out = go_version_m(binary.data, exe)
        s = build_settings(out)
        check(rc == 0, f"{n}: go version -m reads the binary", out)
        check((s.get("GOOS"), s.get("GOARCH")) == (goos, goarch),
              f"{n}: binary built for {goos}/{goarch}", f"{s.get('GOOS')}/{s.get('GOARCH')}")
        check(s.get("-trimpath") == "true" and s.get("CGO_ENABLED") == "0",
              f"{n}: built with -trimpath and CGO_ENABLED=0",
              f"-trimpath={s.get('-trimpath')} CGO_ENABLED={s.get('CGO_ENABLED')}")
        # `go version -m` leaves -ldflags out under -trimpath, so look for
        # the stamped strings themselves: an -X naming a variable that does
        # not exist is silently ignored by the linker, and then they are
        # missing. (-buildvcs=false: no vcs.revision/vcs.time could match.)
        check(not any(k == "vcs" or k.startswith("vcs.") for k in s),
              f"{n}: no VCS stamp (-buildvcs=false)", out)
        for label, value in (("version", version), ("commit", full), ("commit date", cdate)):
            check(value.encode() in binary.data, f"{n}: {label} {value} stamped into the binary")
        if goos in ("linux", "freebsd"):
            secs = elf_sections(binary.data)
            check(secs is not None and ".symtab" not in secs and ".debug_info" not in secs
                  and not any(x.startswith(".zdebug") for x in secs),
                  f"{n}: no symbol table, no DWARF (-s -w)", str(secs))
        if (goos, goarch) == host:
            ran_host = True
            got = run_completions(binary.data, exe)
            for rel, data in sorted(got.items()):
                shipped = files.get(f"{prefix}/completions/{rel}")
                check(data is not None and shipped is not None and data == shipped.data,
                      f"{n}: `git-echoes completion {COMPLETIONS[rel]}` is the shipped {rel}")

    for rel, variants in sorted(completions_seen.items()):
        check(len(variants) == 1, f"completions/{rel} is the same in every archive")
    if host in TARGETS:
        check(ran_host, f"the archive for this host ({host[0]}/{host[1]}) was run")
    else:
        print(f"skip  running a binary: no archive for this host ({host[0]}/{host[1]})")

    # Reproducible: the second run gave the same bytes.
    names_b = sorted(os.listdir(dir_b))
    check(names_b == names, "second run: same file names", f"{names_b} != {names}")
    for n in names:
        pa, pb = os.path.join(dir_a, n), os.path.join(dir_b, n)
        check(os.path.isfile(pb) and sha256(pa) == sha256(pb), f"second run: {n} identical")

    print(f"release-check: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
