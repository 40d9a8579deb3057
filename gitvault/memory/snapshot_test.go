package memory

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/jsjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// snapshotOf lists a project vault directory as a snapshot, the way a
// commit would hold it: regular files and symlinks, no directories.
func snapshotOf(t *testing.T, root string) []SnapshotFile {
	t.Helper()
	var files []SnapshotFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		path := p
		files = append(files, SnapshotFile{Path: filepath.ToSlash(rel), Regular: d.Type().IsRegular(),
			Symlink: d.Type()&fs.ModeSymlink != 0, Read: func() ([]byte, error) { return os.ReadFile(path) }})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The snapshot scan is the file-system scan: the same results,
// diagnostics, order and budgets for search, read and doctor.
func TestSnapshotScanEqualsFileSystemScan(t *testing.T) {
	// A vault with what the scan skips or reports: hidden entries, non-.md
	// files, a symlink, an invalid document and a misplaced one.
	extra := t.TempDir()
	ref, _ := filepath.Abs(filepath.Join("testdata", "reference"))
	for _, f := range snapshotOf(t, ref) {
		data, err := f.Read()
		if err != nil {
			t.Fatal(err)
		}
		testenv.WriteFile(t, filepath.Join(extra, filepath.FromSlash(f.Path)), string(data))
	}
	testenv.WriteFile(t, filepath.Join(extra, "team/notes/.hidden.md"), "x")
	testenv.WriteFile(t, filepath.Join(extra, "team/.hidden/x.md"), "x")
	testenv.WriteFile(t, filepath.Join(extra, "team/notes/readme.txt"), "x")
	testenv.WriteFile(t, filepath.Join(extra, "team/notes/bad.md"), "---\nnot a memory\n")
	testenv.WriteFile(t, filepath.Join(extra, "team/decisions/Zeta.md"), "---\nnot a memory\n")
	trySymlink(t, "bad.md", filepath.Join(extra, "team/notes/link.md"))

	broken, _ := filepath.Abs(filepath.Join("testdata", "broken"))
	for _, dir := range []string{ref, broken, extra} {
		fsRoots := fixtureRootsAt(t, dir)
		snap := SnapshotRoots(fsRoots, "revision test", snapshotOf(t, dir))
		for _, q := range []string{"", "token rotation", "plan", "decision"} {
			for _, scopes := range [][]string{nil, {"team"}, {"project"}} {
				a, errA := Search(fsRoots, SearchOptions{Query: q, Scopes: scopes})
				b, errB := Search(snap, SearchOptions{Query: q, Scopes: scopes})
				if (errA == nil) != (errB == nil) || (errA == nil && jsjson.MarshalCompact(a.JSON()) != jsjson.MarshalCompact(b.JSON())) {
					t.Fatalf("%s search %q %v:\nfs:   %v %v\nsnap: %v %v", dir, q, scopes, a, errA, b, errB)
				}
			}
		}
		da, errA := Doctor(fsRoots, DoctorOptions{})
		db, errB := Doctor(snap, DoctorOptions{})
		if errA != nil || errB != nil || jsjson.MarshalCompact(da.JSON()) != jsjson.MarshalCompact(db.JSON()) {
			t.Fatalf("%s doctor:\nfs:   %s %v\nsnap: %s %v", dir, jsjson.MarshalCompact(da.JSON()), errA, jsjson.MarshalCompact(db.JSON()), errB)
		}
		for _, id := range []string{"mem_20260726_01k123example", "mem_20260720_oldplan", "mem_valid_decision", "mem_nowhere_3"} {
			a, errA := Read(fsRoots, id, ReadOptions{})
			b, errB := Read(snap, id, ReadOptions{})
			switch {
			case (errA == nil) != (errB == nil):
				t.Fatalf("%s read %s: fs %v, snapshot %v", dir, id, errA, errB)
			case errA != nil:
				if errA.Error() != errB.Error() || ErrorCode(errA) != ErrorCode(errB) {
					t.Fatalf("%s read %s: fs %v, snapshot %v", dir, id, errA, errB)
				}
			case a.Path != b.Path || jsjson.MarshalCompact(a.Memory.Full()) != jsjson.MarshalCompact(b.Memory.Full()) ||
				len(a.Backlinks) != len(b.Backlinks):
				t.Fatalf("%s read %s differs", dir, id)
			}
		}
	}
	if da, _ := Doctor(fixtureRootsAt(t, extra), DoctorOptions{}); da.InvalidFileCount == 0 {
		t.Fatal("the extra vault has no invalid files: the test exercises nothing")
	}
}

func TestSnapshotRefusesUserScope(t *testing.T) {
	r := SnapshotRoots(testRoots(t), "revision v1", nil)
	_, err := Search(r, SearchOptions{Scopes: []string{"user"}})
	if err == nil || !strings.Contains(err.Error(), "not stored in Git") {
		t.Fatalf("user scope over a snapshot: %v", err)
	}
	// A scope root that is a symlink in the commit is refused as on disk.
	r = SnapshotRoots(testRoots(t), "revision v1", []SnapshotFile{{Path: "team", Symlink: true}})
	if _, err := Search(r, SearchOptions{}); ErrorCode(err) != CodeUnsafePath {
		t.Fatalf("symlinked team root: %v", err)
	}
}

// fixtureRootsAt is fixtureRoots for any directory.
func fixtureRootsAt(t *testing.T, dir string) *Roots {
	t.Helper()
	home := t.TempDir()
	r, err := ResolveRoots(RootOptions{Cwd: home, Getenv: func(k string) string {
		switch k {
		case "HOME":
			return home
		case "ECC_MEMORY_PROJECT_ROOT":
			return dir
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
