package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

func TestAdapterManagedBlockSplice(t *testing.T) {
	const s, e = gitvault.BlockStart, gitvault.BlockEnd
	tests := []struct {
		name, in, want string
		malformed      bool
	}{
		{name: "missing", in: "", want: managedBlock + "\n"},
		{name: "blank", in: " \n\t\n", want: managedBlock + "\n"},
		{name: "appended", in: "# Mine\r\n\r\n  \n", want: "# Mine\n\n" + managedBlock + "\n"},
		{name: "replaced in place", in: "a\r\n" + s + "\nold\n" + e + "tail\r\n", want: "a\r\n" + managedBlock + "tail\r\n"},
		{name: "adjacent markers", in: s + e, want: managedBlock},
		{name: "two starts", in: s + s + e, malformed: true},
		{name: "start only", in: "x\n" + s + "\n", malformed: true},
		{name: "end only", in: e, malformed: true},
		{name: "end before start", in: e + "\n" + s, malformed: true},
		{name: "two blocks", in: s + e + s + e, malformed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := withManagedBlock(tt.in, "G.md")
			if tt.malformed {
				if err == nil || err.Error() != "Malformed EchoesVault managed block in G.md." {
					t.Fatalf("got %q, %v; want the malformed-block error", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// The recognition substrings are what other engines and health rely on;
// the texts are ours, so only these facts are asserted.
func TestAdapterTextsCarryRecognitionStrings(t *testing.T) {
	texts := map[string]string{"protocol": agentProtocolText, "block": managedBlock, "skill": skillText}
	for _, c := range openCodeCommandTexts {
		texts[c.name] = c.text
	}
	for _, l := range legacyRedirects {
		texts[l.dir] = l.text
		if !strings.Contains(l.text, gitvault.LegacyRedirectID) || containsAny(l.text, l.signatures) {
			t.Errorf("%s: a redirect must say %q and must not carry its legacy signatures", l.dir, gitvault.LegacyRedirectID)
		}
		if !strings.HasPrefix(l.text, "---\nname: "+l.dir+"\ndescription: ") {
			t.Errorf("%s: redirect lacks skill frontmatter", l.dir)
		}
	}
	for name, text := range texts {
		if !strings.Contains(text, gitvault.GeneratedMarker) || !strings.Contains(text, gitvault.AdapterMarker) {
			t.Errorf("%s: missing %q or %q", name, gitvault.GeneratedMarker, gitvault.AdapterMarker)
		}
		if name != "protocol" && !strings.Contains(text, runtimeCall) {
			t.Errorf("%s: does not delegate to %q", name, runtimeCall)
		}
		if !strings.HasSuffix(text, "\n") && name != "block" {
			t.Errorf("%s: no final newline", name)
		}
	}
	if !strings.Contains(managedBlock, "Managed adapter version: 1.1.1. Reference engine: 1.1.1.") ||
		!strings.HasPrefix(managedBlock, gitvault.BlockStart+"\n") || !strings.HasSuffix(managedBlock, "\n"+gitvault.BlockEnd) ||
		strings.Count(managedBlock, gitvault.BlockStart) != 1 || strings.Count(managedBlock, gitvault.BlockEnd) != 1 {
		t.Errorf("managed block shape is wrong:\n%s", managedBlock)
	}
	if !strings.HasPrefix(skillText, "---\nname: echoes-vault\ndescription: ") {
		t.Errorf("skill lacks frontmatter")
	}
}

// The embedded launcher must be recognised, as current, by the same rules
// health and the reference engine use (echoes-conformance §18.5), and as ours.
func TestAdapterLauncherVersionLines(t *testing.T) {
	root := t.TempDir()
	ws := openWorkspace(t, root)
	if err := os.MkdirAll(ws.RuntimeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws.Runtime, []byte(launcherSource), 0o755); err != nil {
		t.Fatal(err)
	}
	rs := ws.RuntimeStatus()
	if !rs.Recognized || !rs.Current || gitvault.VersionString(rs.Engine) != gitvault.EngineVersion || gitvault.VersionString(rs.Protocol) != gitvault.ProtocolVersion {
		t.Fatalf("launcher status = %+v", rs)
	}
	if !isLauncher(launcherSource) || strings.Contains(launcherSource, "\r") || !strings.HasPrefix(launcherSource, "#!/usr/bin/env python3\n") {
		t.Fatal("launcher is not recognisable as git-echoes' own LF Python script")
	}
	if isLauncher("x = 1\n# GIT_ECHOES_LAUNCHER = True\n") {
		t.Fatal("the marker must be a whole line")
	}
	if act, err := planRuntime(ws, true); err != nil || act != runtimeKeep {
		t.Fatalf("identical launcher: action %v, %v", act, err)
	}
}

func TestAdapterPlanRuntime(t *testing.T) {
	ours := "ENGINE_VERSION = \"1.1.1\"\nPROTOCOL_VERSION = \"1.0.0\"\nGIT_ECHOES_LAUNCHER = True\n"
	tests := []struct {
		name, text string
		install    bool
		want       runtimeAction
		err        string
	}{
		{name: "older launcher", text: ours, install: true, want: runtimeReplace},
		{name: "older launcher, configure-agents", text: ours, want: runtimeKeep},
		{name: "newer launcher", text: strings.Replace(ours, "1.1.1", "1.1.2", 1), install: true, want: runtimeKeep},
		{name: "reference engine", text: "ENGINE_VERSION = \"1.1.1\"\nPROTOCOL_VERSION = \"1.0.0\"\n", install: true, want: runtimeKeep},
		{name: "plugin version", text: "PLUGIN_VERSION = \"0.3.0\"\nPROTOCOL_VERSION = \"1.0.0\"\n", install: true, want: runtimeKeep},
		{name: "unrecognized", text: "print(1)\n", install: true, err: "Refusing to overwrite an unrecognized portable runtime: "},
		{name: "unrecognized, configure-agents", text: "print(1)\n", want: runtimeKeep},
		{name: "no protocol", text: "ENGINE_VERSION = \"1.1.1\"\n", install: true, err: "Refusing to overwrite a runtime with unknown protocol metadata: "},
		{name: "other protocol", text: ours + "PROTOCOL_VERSION = \"1.0.1\"\n", install: true, want: runtimeReplace},
		{name: "incompatible", text: "ENGINE_VERSION = \"3.0.0\"\nPROTOCOL_VERSION = \"2.10.0\"\n", install: true,
			err: "Refusing to replace runtime protocol (2, 10, 0) with incompatible protocol (1, 0, 0)."},
		{name: "invalid UTF-8", text: "\xff", install: true, err: "Cannot read portable runtime "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := openWorkspace(t, t.TempDir())
			if err := os.MkdirAll(ws.RuntimeDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(ws.Runtime, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			act, err := planRuntime(ws, tt.install)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("got %v, %v; want error %q", act, err, tt.err)
				}
				return
			}
			if err != nil || act != tt.want {
				t.Fatalf("got %v, %v; want %v", act, err, tt.want)
			}
		})
	}
	ws := openWorkspace(t, t.TempDir())
	if act, err := planRuntime(ws, false); err != nil || act != runtimeInstall {
		t.Fatalf("missing runtime: %v, %v", act, err)
	}
	if err := os.MkdirAll(ws.RuntimeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.SymlinkOrSkip(t, "nowhere", ws.Runtime)
	if _, err := planRuntime(ws, false); err == nil || err.Error() != "Refusing to replace a symbolic-link runtime: "+ws.Runtime {
		t.Fatalf("dangling symlink runtime: %v", err)
	}
}

// installAdapters, through a real lock, is idempotent: the second call
// reports nothing and writes nothing.
func TestAdapterInstallIdempotent(t *testing.T) {
	ws := openWorkspace(t, t.TempDir())
	w, err := ws.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	first, err := installAdapters(w, true)
	if err != nil {
		t.Fatal(err)
	}
	if !first.RuntimeUpdated || !first.ProtocolUpdated || len(first.GuidesUpdated) != 2 ||
		len(first.SkillsUpdated) != 2 || len(first.CommandsUpdated) != 4 {
		t.Fatalf("first install: %+v", first)
	}
	before := adapterSnapshot(t, ws.Root)
	second, err := installAdapters(w, true)
	if err != nil {
		t.Fatal(err)
	}
	if second.RuntimeUpdated || second.ProtocolUpdated || len(second.GuidesUpdated)+len(second.SkillsUpdated)+
		len(second.CommandsUpdated)+len(second.AdapterConflicts)+len(second.LegacySkillsRedirected) != 0 {
		t.Fatalf("second install: %+v", second)
	}
	if after := adapterSnapshot(t, ws.Root); after != before {
		t.Fatalf("second install changed files:\n%s\n---\n%s", before, after)
	}
}

// adapterSnapshot lists every regular file below root with its mode and content.
func adapterSnapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(p) == "lock" {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		b.WriteString(p + " " + info.Mode().String() + " " + string(data) + "\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
