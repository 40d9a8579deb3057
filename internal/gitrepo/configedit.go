package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/git-echoes/git-echoes/internal/fsx"
)

// Editing git config files: the installer of the page merge driver
// (merge.InstallMergeDriver) adds and removes its section with these,
// next to the reader in config.go.

// ConfigKey is one "name = value" line of a section SetConfigSection
// writes.
type ConfigKey struct{ Name, Value string }

// SetConfigSection makes the git config file at p hold the section
// [section "subsection"] with exactly keys, in order: every copy of that
// section is removed and one new copy appended at the end (section names
// compare case-insensitively, subsections exactly, as in git). It writes
// nothing and reports false when the file already holds exactly one copy
// with those lines, spacing aside. A missing file is an error: the config
// of an opened repository exists.
func SetConfigSection(p, section, subsection string, keys []ConfigKey) (changed bool, err error) {
	re, header, err := configSectionHeader(section, subsection)
	if err != nil {
		return false, err
	}
	text := header
	for _, k := range keys {
		text += "\t" + k.Name + " = " + gitConfigValue(k.Value) + "\n"
	}
	return editConfigSection(p, re, true, text)
}

// RemoveConfigSection removes every [section "subsection"] of the git
// config file at p, keeping all other lines byte for byte; removed is
// false when there was none.
func RemoveConfigSection(p, section, subsection string) (removed bool, err error) {
	re, _, err := configSectionHeader(section, subsection)
	if err != nil {
		return false, err
	}
	return editConfigSection(p, re, false, "")
}

// configSectionHeader returns the pattern that matches the header of
// [section "subsection"] (section names are case-insensitive in git,
// subsections are not) and the header line written for it, with '"' and
// '\' escaped in the subsection as git writes them.
func configSectionHeader(section, subsection string) (*regexp.Regexp, string, error) {
	if section == "" || strings.ContainsAny(section, " \t\n\"[]") || strings.ContainsAny(subsection, "\n\x00") {
		return nil, "", fmt.Errorf("invalid config section [%s %q]", section, subsection)
	}
	sub := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(subsection)
	re := regexp.MustCompile(`^\s*\[\s*(?i:` + regexp.QuoteMeta(section) + `)\s+"` + regexp.QuoteMeta(sub) + `"\s*\]`)
	return re, "[" + section + " \"" + sub + "\"]\n", nil
}

// gitConfigValue writes v as a git config value that git reads back as v,
// the way git's own writer does (config.c write_pair): backslash, double
// quote, newline and tab are escaped, and the value is double-quoted when
// it starts or ends with a space or holds ';' or '#', which would otherwise
// be trimmed or start a comment.
func gitConfigValue(v string) string {
	quote := ""
	if strings.HasPrefix(v, " ") || strings.HasSuffix(v, " ") || strings.ContainsAny(v, ";#") {
		quote = `"`
	}
	var b strings.Builder
	b.WriteString(quote)
	for _, c := range []byte(v) {
		switch c {
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString(quote)
	return b.String()
}

// editConfigSection adds (install) or removes the section whose header
// matches ourSection; section is its new text when installing. Only that
// section's lines are touched; comments, formatting and every other
// section stay byte for byte. The file is written through config.lock, as
// git itself does, so a concurrent git config writer fails rather than
// losing an update. changed is false when nothing was written.
func editConfigSection(p string, ourSection *regexp.Regexp, install bool, section string) (changed bool, err error) {
	data, exists, err := ReadFileToEdit(p)
	if err != nil {
		return false, err
	}
	if !exists {
		return false, fmt.Errorf("no git config at %s", p)
	}
	lines := splitLines(data)
	var kept []string
	var sections []string // bodies of our sections, header included
	in := false
	for _, l := range lines {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "[") {
			in = ourSection.MatchString(l)
			if in {
				sections = append(sections, "")
			}
		}
		if in {
			sections[len(sections)-1] += l
			continue
		}
		kept = append(kept, l)
	}
	var out string
	if install {
		if len(sections) == 1 && normalizeSection(sections[0]) == normalizeSection(section) {
			return false, nil
		}
		out = strings.Join(kept, "")
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += section
	} else {
		if len(sections) == 0 {
			return false, nil
		}
		out = strings.Join(kept, "")
	}
	if err := writeLocked(p, []byte(out)); err != nil {
		return false, err
	}
	return true, nil
}

func normalizeSection(s string) string {
	var lines []string
	for _, l := range splitLines([]byte(s)) {
		if t := strings.TrimSpace(l); t != "" {
			lines = append(lines, strings.Join(strings.Fields(t), " "))
		}
	}
	return strings.Join(lines, "\n")
}

// writeLocked replaces p through p.lock, created exclusively as git does
// (fsx.WriteLocked: atomic rename, on Windows MoveFileEx write-through).
func writeLocked(p string, data []byte) error {
	err := fsx.WriteLocked(p, data)
	var le *fsx.LockFileError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &le) && errors.Is(le.Err, fs.ErrExist):
		return fmt.Errorf("cannot lock %s: %s exists (another git process is writing the config)", p, le.Path)
	case errors.As(err, &le):
		return fmt.Errorf("lock %s: %w", p, le.Err)
	}
	return fmt.Errorf("write %s: %w", p, err)
}

// ReadFileToEdit reads a repository file that git-echoes is about to edit
// (the config, .gitattributes): a missing file is reported by exists, not
// as an error, and anything but a regular file refuses the edit.
func ReadFileToEdit(p string) (data []byte, exists bool, err error) {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("inspect %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("refusing to edit %s: not a regular file", p)
	}
	data, err = os.ReadFile(p)
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", p, err)
	}
	return data, true, nil
}

// splitLines splits data into lines that keep their newline.
func splitLines(data []byte) []string {
	var lines []string
	s := string(data)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}
