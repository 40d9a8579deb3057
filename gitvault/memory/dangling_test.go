package memory

import (
	"github.com/git-echoes/git-echoes/internal/testenv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// saveNote saves a small project note and returns the error.
func saveNote(r *Roots) error {
	_, err := Save(r, SaveInput{Title: "t", Body: "b"})
	return err
}

// wantErr fails unless err's message is want exactly.
func wantErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want {
		t.Errorf("%s: %v\nwant: %s", what, err, want)
	}
}

// noMemories fails when any memory file exists under the scope root.
func noMemories(t *testing.T, root string) {
	t.Helper()
	for _, p := range listFiles(t, root) {
		if strings.HasSuffix(p, ".md") {
			t.Errorf("a memory was written: %s", p)
		}
	}
}

// TestMemoryGitignoreLabel: the guarded reader's messages for the project
// .gitignore use the reference's lower-case label "project memory
// .gitignore" (ecc-conformance §4.2, ecc-conformance §11.3); only the
// rules message is capitalized.
func TestMemoryGitignoreLabel(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, path string) bool
		want  string
	}{
		{"invalid UTF-8", func(t *testing.T, p string) bool { testenv.WriteFile(t, p, "*\n!.gitignore\n\xff"); return true },
			"project memory .gitignore must contain valid UTF-8 text."},
		{"too large", func(t *testing.T, p string) bool {
			testenv.WriteFile(t, p, strings.Repeat("#", MaxDocumentBytes+1))
			return true
		}, "project memory .gitignore is too large (" + strconv.Itoa(MaxDocumentBytes+1) + " bytes)."},
		{"directory", func(t *testing.T, p string) bool {
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
			return true
		}, "project memory .gitignore must be a regular, non-symlink file."},
		{"FIFO", func(t *testing.T, p string) bool { return mkfifo(t, p) },
			"project memory .gitignore must be a regular, non-symlink file."},
		{"wrong rules", func(t *testing.T, p string) bool { testenv.WriteFile(t, p, "*\r\n!.gitignore\r\n"); return true },
			"Project memory .gitignore does not contain the required fail-closed rules."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := testRoots(t)
			root := r.ScopeRoot("project")
			if err := os.MkdirAll(root, 0o700); err != nil {
				t.Fatal(err)
			}
			if !c.setup(t, filepath.Join(root, ".gitignore")) {
				t.Skip("no FIFOs on this system")
			}
			_, err := Init(r, []string{"project"})
			wantErr(t, "init", err, c.want)
			wantErr(t, "save", saveNote(r), c.want)
			noMemories(t, root)
		})
	}
}

// TestMemoryDanglingSymlinks: a dangling symlink (or a symlink loop) exists
// for the reference's containment check, which lstats, and cannot be
// resolved, so it is refused as outside the install root: as the project
// .gitignore, as a kind directory and as a scope root (issue 11;
// ecc-conformance §3.2, ecc-conformance §4.2, ecc-conformance §9). None of
// them may surface ELOOP, and nothing is created through them.
func TestMemoryDanglingSymlinks(t *testing.T) {
	t.Run("gitignore", func(t *testing.T) {
		for _, target := range []string{"missing", "../elsewhere/missing", ".gitignore"} {
			r := testRoots(t)
			root := r.ScopeRoot("project")
			if err := os.MkdirAll(root, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(root, ".gitignore")
			symlinkOrSkip(t, target, path)
			want := "Refusing to write memory outside the install root: '" + path + "' is not within '" + root + "'."
			_, err := Init(r, []string{"project"})
			wantErr(t, "init with .gitignore -> "+target, err, want)
			wantErr(t, "save with .gitignore -> "+target, saveNote(r), want)
			noMemories(t, root)
			if _, err := os.Lstat(filepath.Join(root, "missing")); !os.IsNotExist(err) {
				t.Errorf(".gitignore -> %s: the link was followed", target)
			}
		}
	})
	t.Run("kind directory", func(t *testing.T) {
		for _, target := range []string{"missing", "../../outside", "notes"} {
			r := testRoots(t)
			root := r.ScopeRoot("project")
			if err := os.MkdirAll(root, 0o700); err != nil {
				t.Fatal(err)
			}
			// The note kind for save; Kinds[0] for init, which stops at the
			// first kind directory it refuses.
			for _, kind := range []string{"note", Kinds[0]} {
				dir := filepath.Join(root, kind+"s")
				if _, err := os.Lstat(dir); err == nil {
					continue
				}
				t2 := target
				if target == "notes" {
					t2 = kind + "s" // a link to itself
				}
				symlinkOrSkip(t, t2, dir)
			}
			want := func(kind string) string {
				dir := filepath.Join(root, kind+"s")
				return "Refusing to access memory directory outside the install root: '" + dir + "' is not within '" + root + "'."
			}
			_, err := Init(r, []string{"project"})
			wantErr(t, "init with kind dir -> "+target, err, want(Kinds[0]))
			wantErr(t, "save with notes -> "+target, saveNote(r), want("note"))
			noMemories(t, root)
			if _, err := os.Lstat(filepath.Join(root, "missing")); !os.IsNotExist(err) {
				t.Errorf("kind dir -> %s: the link was followed", target)
			}
		}
	})
	t.Run("scope root", func(t *testing.T) {
		r := testRoots(t)
		root := r.ScopeRoot("project")
		if err := os.MkdirAll(filepath.Dir(root), 0o700); err != nil {
			t.Fatal(err)
		}
		symlinkOrSkip(t, "missing", root)
		want := "Refusing to access memory through a symlink outside the install root: '" + root + "' is not within '" + r.Boundary("project") + "'."
		_, err := Init(r, []string{"project"})
		wantErr(t, "init", err, want)
		wantErr(t, "save", saveNote(r), want)
		_, err = Search(r, SearchOptions{Query: "x", Scopes: []string{"project"}})
		wantErr(t, "search", err, want)
		if _, err := os.Lstat(filepath.Join(filepath.Dir(root), "missing")); !os.IsNotExist(err) {
			t.Error("the root link was followed")
		}
	})
	t.Run("live symlinks keep their errors", func(t *testing.T) {
		// A .gitignore linked inside the root still fails the no-follow open
		// (ecc-conformance §4.2), and a kind directory linked inside is the
		// symlink-directory refusal.
		r := testRoots(t)
		root := r.ScopeRoot("project")
		testenv.WriteFile(t, filepath.Join(root, "real"), GitignoreContent)
		symlinkOrSkip(t, "real", filepath.Join(root, ".gitignore"))
		err := saveNote(r)
		if err == nil || !strings.HasPrefix(err.Error(), "ELOOP: too many symbolic links encountered, open '") {
			t.Errorf("live .gitignore link: %v", err)
		}
		if err := os.Remove(filepath.Join(root, ".gitignore")); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, "facts"), 0o700); err != nil {
			t.Fatal(err)
		}
		symlinkOrSkip(t, "facts", filepath.Join(root, "notes"))
		wantErr(t, "live kind dir link", saveNote(r), "Refusing to access memory through symlink directory: "+filepath.Join(root, "notes"))
	})
}
