#!/usr/bin/env python3
"""SQLite FTS5 through Python's sqlite3: the yardstick of `git echoes find`
(issue 12). It indexes the same corpus (the pages' title line, summary and
body; the memories' title, body and tags) with FTS5's own porter/unicode61
tokenizer and column weights like find's, then times the same queries.
Nothing here is a pass/fail test.

  scripts/bench-fts5.py WORKSPACE QUERY...
  scripts/bench-fts5.py --build-only WORKSPACE


Prints, in milliseconds: the first build, the warm query p50 and p99 (in
process, over 20 rounds of the queries), the update of one changed page,
and the index size in MB. --build-only builds the index and exits, for
tools/pairbench to pair whole processes (first build against first build).
"""
import os
import re
import sqlite3
import sys
import tempfile
import time

FRONT = re.compile(r"\A---\n(.*?)\n---\n?", re.S)


def page_fields(text):
    m = FRONT.match(text)
    meta, body = {}, text
    if m:
        body = text[m.end():]
        for line in m.group(1).splitlines():
            k, _, v = line.partition(":")
            meta[k.strip()] = v.strip()
    title = next((l.lstrip("#").strip() for l in body.splitlines() if l.startswith("#")), "")
    return title, meta.get("summary", ""), body


def memory_fields(text):
    m = FRONT.match(text)
    meta, body = {}, text
    if m:
        body = text[m.end():]
        for line in m.group(1).splitlines():
            k, _, v = line.partition(":")
            meta[k.strip()] = v.strip()
    return meta.get("title", ""), meta.get("tags", ""), body


def corpus(ws):
    pages = os.path.join(ws, "EchoesVault", "pages")
    for name in sorted(os.listdir(pages)):
        if name.endswith(".md"):
            with open(os.path.join(pages, name), encoding="utf-8") as f:
                t, s, b = page_fields(f.read())
            yield "page:" + name, t, s, b, ""
    mem = os.path.join(ws, ".ecc", "memory")
    for root, _, files in os.walk(mem):
        for name in sorted(files):
            if name.endswith(".md"):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    t, tags, b = memory_fields(f.read())
                yield "memory:" + name, t, "", b, tags


def main():
    build_only = len(sys.argv) == 3 and sys.argv[1] == "--build-only"
    if build_only:
        sys.argv = [sys.argv[0], sys.argv[2], "x"]
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    ws, queries = sys.argv[1], sys.argv[2:]
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "fts5.db")
    t0 = time.perf_counter()
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, key TEXT UNIQUE, body TEXT)")
    db.execute("CREATE VIRTUAL TABLE fts USING fts5(title, summary, body, tags, tokenize='porter unicode61 remove_diacritics 2', content='')")
    with db:
        for i, (key, t, s, b, tags) in enumerate(corpus(ws), 1):
            db.execute("INSERT INTO docs(id, key, body) VALUES (?, ?, ?)", (i, key, b))
            db.execute("INSERT INTO fts(rowid, title, summary, body, tags) VALUES (?, ?, ?, ?, ?)", (i, t, s, b, tags))
    db.close()
    build = (time.perf_counter() - t0) * 1000
    if build_only:
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
        os.rmdir(tmp)
        return 0

    db = sqlite3.connect(path)
    sql = ("SELECT d.id, bm25(fts, 10.0, 8.0, 1.0, 4.0) AS s FROM fts JOIN docs d ON d.id = fts.rowid "
           "WHERE fts MATCH ? ORDER BY s LIMIT 10")
    ds = []
    for _ in range(20):
        for q in queries:
            expr = " OR ".join('"%s"' % w.replace('"', '""') for w in q.split())
            t = time.perf_counter()
            rows = db.execute(sql, (expr,)).fetchall()
            for rid, _ in rows:
                db.execute("SELECT body FROM docs WHERE id = ?", (rid,)).fetchone()
            ds.append((time.perf_counter() - t) * 1000)
    ds.sort()
    p50, p99 = ds[len(ds) // 2], ds[min(len(ds) - 1, len(ds) * 99 // 100)]

    # One changed page: delete and insert it in one transaction (contentless
    # FTS5 needs the old values for the delete: read back from docs).
    t = time.perf_counter()
    with db:
        # The middle page (page-05000 of the 10,000-page vault).
        half = db.execute("SELECT count(*) FROM docs WHERE key LIKE 'page:%'").fetchone()[0] // 2
        rid, body = db.execute("SELECT id, body FROM docs WHERE key LIKE 'page:%' ORDER BY id LIMIT 1 OFFSET ?", (half,)).fetchone()
        db.execute("INSERT INTO fts(fts, rowid, title, summary, body, tags) VALUES ('delete', ?, '', '', ?, '')", (rid, body))
        db.execute("UPDATE docs SET body = ? WHERE id = ?", (body + "\nedit\n", rid))
        db.execute("INSERT INTO fts(rowid, title, summary, body, tags) VALUES (?, '', '', ?, '')", (rid, body + "\nedit\n"))
    update = (time.perf_counter() - t) * 1000
    db.close()
    size = sum(os.path.getsize(os.path.join(tmp, f)) for f in os.listdir(tmp)) / 1e6
    print("fts5 build %.0f ms" % build)
    print("fts5 warm query p50 %.2f ms p99 %.2f ms" % (p50, p99))
    print("fts5 one-page update %.2f ms" % update)
    print("fts5 index %.1f MB" % size)
    for f in os.listdir(tmp):
        os.remove(os.path.join(tmp, f))
    os.rmdir(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
