package find

import (
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the SQLite FTS5 engine, pure Go

	"github.com/git-echoes/git-echoes/internal/analysis"
	"github.com/git-echoes/git-echoes/internal/fsx"
)

// The index is a SQLite database with an FTS5 table, one per work tree,
// under the workspace's local cache directory (gitvault.LocalCacheDir):
//
//	<cache>/find/<worktree key>/current        names the live generation
//	<cache>/find/<worktree key>/<generation>.db
//
// Incremental updates are SQLite transactions in the live generation:
// a reader never sees a half-written update and two writers serialize on
// SQLite's own lock (WAL mode, busy timeout). A generation that cannot be
// trusted (corrupt, foreign, another format or analysis version) is never
// repaired in place: a new one is built under a fresh name and published
// by atomically replacing `current`, so no reader ever opens a database
// while it is being built, and no SQLite file is ever renamed or reused
// under a name another process may have open.

// formatVersion names the schema; with analysis.Version it is checked on
// every open.
const formatVersion = "git-echoes-find/5" // 2: ctime in the file identity; 3: each surface once per document; 4: a page's name in its title column; 5: stack items, one per line

const schema = `
CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE docs(
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  source TEXT NOT NULL,
  path TEXT NOT NULL,
  fmode INTEGER NOT NULL, fsize INTEGER NOT NULL, mtime INTEGER NOT NULL, ctime INTEGER NOT NULL,
  dev INTEGER NOT NULL, ino INTEGER NOT NULL, indexed INTEGER NOT NULL,
  hash TEXT NOT NULL,
  invalid TEXT NOT NULL DEFAULT '',
  title TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL DEFAULT '', stack TEXT NOT NULL DEFAULT '', status TEXT NOT NULL DEFAULT '',
  ftype TEXT NOT NULL DEFAULT '', fstack TEXT NOT NULL DEFAULT '',
  kind TEXT NOT NULL DEFAULT '', scope TEXT NOT NULL DEFAULT '', memid TEXT NOT NULL DEFAULT '',
  tags TEXT NOT NULL DEFAULT '', date TEXT NOT NULL DEFAULT '', links TEXT NOT NULL DEFAULT '',
  bodyline INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE bodies(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE INDEX docs_source ON docs(source);
CREATE VIRTUAL TABLE fts USING fts5(title, summary, body, tags, whole, surface,
  tokenize='ascii', content='', contentless_delete=1);
`

// store is one open generation.
type store struct {
	db       *sql.DB
	building bool   // opened by createGeneration with buildPragmas
	dir      string // <cache>/find/<worktree key>
	gen      string // generation name
	path     string
}

// indexDir is where the index of the work tree at root lives.
func indexDir(cacheDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(cacheDir, hex.EncodeToString(sum[:8]))
}

// livePragmas are those of a published generation: readers and writers
// of several processes share it. Reads are memory-mapped where the OS
// lets a mapped file be deleted (mmapPragma).
var livePragmas = []string{"busy_timeout(15000)", "journal_mode(WAL)", "synchronous(NORMAL)", mmapPragma}

// buildPragmas are those of a generation being built (issue 19): no other
// process opens it before it is published, and a build that does not
// finish is never published, so it needs no journal and no syncs while
// it is written; publish syncs it once and reopens it with livePragmas.
// (A 32 MB page cache was measured too: no change, in paired whole-process runs.)
var buildPragmas = []string{"busy_timeout(15000)", "journal_mode(OFF)", "synchronous(OFF)"}

func openDB(path string, create bool) (*sql.DB, error) {
	return openDBWith(path, create, livePragmas)
}

func openDBWith(path string, create bool, pragmas []string) (*sql.DB, error) {
	if !create {
		if _, err := os.Lstat(path); err != nil {
			return nil, err
		}
	}
	v := url.Values{}
	for _, p := range pragmas {
		v.Add("_pragma", p)
	}
	v.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?"+v.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openCurrent opens the live generation, or reports why it cannot be
// trusted.
func openCurrent(dir, root string) (*store, error) {
	b, err := os.ReadFile(filepath.Join(dir, "current"))
	if err != nil {
		return nil, err
	}
	gen := strings.TrimSpace(string(b))
	if !validGen(gen) {
		return nil, errors.New("the generation pointer is not one of ours")
	}
	path := filepath.Join(dir, gen+".db")
	db, err := openDB(path, false)
	if err != nil {
		return nil, err
	}
	s := &store{db: db, dir: dir, gen: gen, path: path}
	if err := s.checkMeta(root); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func validGen(g string) bool {
	if !strings.HasPrefix(g, "g-") || len(g) != 2+16 {
		return false
	}
	_, err := hex.DecodeString(g[2:])
	return err == nil
}

// checkMeta refuses a database that is not an index of this work tree in
// this format and analysis version. Damage it does not see (a corrupt
// page deeper in the file) surfaces as an SQLite error when the index is
// used, and Find then rebuilds it (isIndexError); a full integrity check
// on every open would cost a read of the whole file.
func (s *store) checkMeta(root string) error {
	want := map[string]string{"format": formatVersion, "analysis": analysis.Version, "root": root, "complete": "1"}
	rows, err := s.db.Query(`SELECT k, v FROM meta WHERE k IN ('format','analysis','root','complete')`)
	if err != nil {
		return err
	}
	defer rows.Close()
	got := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		got[k] = v
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for k, v := range want {
		if got[k] != v {
			return fmt.Errorf("index %s is %q, not %q", k, got[k], v)
		}
	}
	return nil
}

// createGeneration makes a new, empty, not yet published generation.
func createGeneration(dir, root string) (*store, error) {
	if err := fsx.MkdirAllSync(dir, 0o755); err != nil {
		return nil, err
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	gen := "g-" + hex.EncodeToString(rnd[:])
	path := filepath.Join(dir, gen+".db")
	db, err := openDBWith(path, true, buildPragmas)
	if err != nil {
		return nil, err
	}
	s := &store{db: db, dir: dir, gen: gen, path: path, building: true}
	if _, err := db.Exec(schema); err != nil {
		s.discard()
		return nil, err
	}
	if _, err := db.Exec(`INSERT INTO meta(k, v) VALUES ('format', ?), ('analysis', ?), ('root', ?)`,
		formatVersion, analysis.Version, root); err != nil {
		s.discard()
		return nil, err
	}
	return s, nil
}

// publish marks the generation complete and makes it the live one. The
// generation it replaces is removed, and so are leftovers of builds that
// never published (older than an hour: a build in progress is never
// touched); all best effort, as a file still open elsewhere may refuse.
func (s *store) publish() error {
	prev := ""
	if b, err := os.ReadFile(filepath.Join(s.dir, "current")); err == nil {
		prev = strings.TrimSpace(string(b))
	}
	if s.building {
		// Everything written so far reaches the disk before the
		// generation is marked complete, and it is reopened as a live one.
		if err := s.db.Close(); err != nil {
			return err
		}
		if err := fsx.SyncFile(s.path); err != nil {
			return err
		}
		db, err := openDB(s.path, false)
		if err != nil {
			return err
		}
		s.db, s.building = db, false
	}
	if _, err := s.db.Exec(`INSERT INTO meta(k, v) VALUES ('complete', '1')`); err != nil {
		return err
	}
	if _, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return err
	}
	if err := fsx.WriteFileAtomic(filepath.Join(s.dir, "current"), []byte(s.gen+"\n")); err != nil {
		return err
	}
	entries, _ := os.ReadDir(s.dir)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "g-") || strings.HasPrefix(name, s.gen+".") {
			continue
		}
		old := prev != "" && strings.HasPrefix(name, prev+".")
		if fi, err := e.Info(); old || (err == nil && time.Since(fi.ModTime()) > time.Hour) {
			_ = os.Remove(filepath.Join(s.dir, name))
		}
	}
	return nil
}

// discard closes and removes an unpublished generation.
func (s *store) discard() {
	s.db.Close()
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		_ = os.Remove(s.path + suffix)
	}
}

func (s *store) close() error { return s.db.Close() }

func itoa(n int) string     { return strconv.Itoa(n) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
func utoa(n uint64) string  { return strconv.FormatUint(n, 10) }

// createMemory makes a generation held in memory only (MemIndex): one
// connection (an in-memory database lives as long as its connection), the
// same schema and meta, nothing on disk.
func createMemory(root string) (*store, error) {
	db, err := sql.Open("sqlite", "file::memory:?_txlock=immediate")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s := &store{db: db}
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.Exec(`INSERT INTO meta(k, v) VALUES ('format', ?), ('analysis', ?), ('root', ?), ('complete', '1')`,
		formatVersion, analysis.Version, root); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}
