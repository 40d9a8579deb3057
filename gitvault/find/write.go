package find

import (
	"database/sql"
	"strings"

	"github.com/git-echoes/git-echoes/internal/pytext"
)

// txWriter writes documents in one transaction through statements
// prepared once (issue 19: preparing every INSERT again was a share of a
// first build's SQL time).
type txWriter struct {
	tx    *sql.Tx
	stmts [6]*sql.Stmt
}

const (
	stInsertDoc = iota
	stInsertBody
	stInsertFTS
	stDeleteFTS
	stDeleteBody
	stDeleteDoc
)

var writerSQL = [...]string{
	stInsertDoc: `INSERT INTO docs(key, source, path, fmode, fsize, mtime, ctime, dev, ino, indexed, hash, invalid,
		title, summary, type, stack, status, ftype, fstack, kind, scope, memid, tags, date, links, bodyline)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
	stInsertBody: `INSERT INTO bodies(id, body) VALUES (?, ?)`,
	stInsertFTS:  `INSERT INTO fts(rowid, title, summary, body, tags, whole, surface) VALUES (?,?,?,?,?,?,?)`,
	stDeleteFTS:  `DELETE FROM fts WHERE rowid = ?`,
	stDeleteBody: `DELETE FROM bodies WHERE id = ?`,
	stDeleteDoc:  `DELETE FROM docs WHERE id = ?`,
}

func newTxWriter(tx *sql.Tx) *txWriter { return &txWriter{tx: tx} }

// exec runs statement k, preparing it on first use.
func (w *txWriter) exec(k int, args ...any) (sql.Result, error) {
	if w.stmts[k] == nil {
		st, err := w.tx.Prepare(writerSQL[k])
		if err != nil {
			return nil, err
		}
		w.stmts[k] = st
	}
	return w.stmts[k].Exec(args...)
}

func (w *txWriter) close() {
	for _, st := range w.stmts {
		if st != nil {
			st.Close()
		}
	}
}

func (w *txWriter) deleteDoc(id int64) error {
	for _, k := range []int{stDeleteFTS, stDeleteBody, stDeleteDoc} {
		if _, err := w.exec(k, id); err != nil {
			return err
		}
	}
	return nil
}

// touch records a new identity for a document whose content is unchanged.
func (w *txWriter) touch(d *doc, now, id int64) error {
	_, err := w.tx.Exec(`UPDATE docs SET fmode=?, fsize=?, mtime=?, ctime=?, dev=?, ino=?, indexed=? WHERE id=?`,
		int64(d.fid.Mode), d.fid.Size, d.fid.Mtime, d.fid.Ctime, d.fid.Dev, d.fid.Ino, now, id)
	return err
}

func (w *txWriter) insertDoc(d *doc, now int64) error {
	stack, fstack := stackFields(d.stack)
	res, err := w.exec(stInsertDoc,
		d.key, d.source, d.path, int64(d.fid.Mode), d.fid.Size, d.fid.Mtime, d.fid.Ctime, d.fid.Dev, d.fid.Ino, now, d.hash, d.invalid,
		d.title, d.summary, d.typ, stack, d.status, pytext.Casefold(d.typ), fstack,
		d.kind, d.scope, d.id, tagField(d.tags), d.date, strings.Join(d.links, "\n"), d.bodyLine)
	if err != nil {
		return err
	}
	if d.invalid != "" {
		return nil // skipped and reported, never matched
	}
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	// Bodies live apart, so ranking never reads them: only the hits'.
	if _, err := w.exec(stInsertBody, id, d.body); err != nil {
		return err
	}
	f := d.analyzed
	if f == nil {
		f = analyzeDoc(d)
	}
	_, err = w.exec(stInsertFTS, id, f.title, f.summary, f.body, f.tags, f.whole, f.surface)
	return err
}
