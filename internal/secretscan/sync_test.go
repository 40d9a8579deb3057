package secretscan

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	glconfig "github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/git-echoes/git-echoes/internal/secretscan/secrettest"
)

// The gitleaks module is imported by this test only: it keeps the
// compiled-in rule set in step and is the referee of what our scanner
// reports; it never enters the binary (go list -deps ./cmd/git-echoes).

// TestDefaultConfigIsGitleaks: gitleaks.toml is byte for byte the
// configuration of the gitleaks module go.mod requires, and
// GitleaksVersion names that version. Upgrading is: go get the new
// version, copy its config/gitleaks.toml here, set GitleaksVersion.
func TestDefaultConfigIsGitleaks(t *testing.T) {
	if defaultConfig != glconfig.DefaultConfig {
		t.Fatal("internal/secretscan/gitleaks.toml differs from the gitleaks module's config/gitleaks.toml: copy it again")
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mod), "github.com/zricethezav/gitleaks/v8 "+GitleaksVersion+"\n") {
		t.Errorf("go.mod does not require gitleaks %s", GitleaksVersion)
	}
}

func gitleaksFindings(t *testing.T, d *detect.Detector, path, text string) []string {
	t.Helper()
	var out []string
	// detect.Fragment is deprecated for sources.Fragment in gitleaks v9; v8.30.1
	// (the version the rules are compiled from) still takes it.
	//lint:ignore SA1019 the referee is gitleaks v8
	for _, f := range d.Detect(detect.Fragment{Raw: text, FilePath: path}) {
		out = append(out, fmt.Sprintf("%d:%s", f.StartLine+1, f.RuleID))
	}
	return comparable(text, out)
}

// comparable is a list of findings "line:rule" made comparable: sorted,
// one per rule and line (gitleaks reports each secret, we report rule and
// line: two secrets of one rule on a line are one finding), and, for a
// text with a lone "\r", without lines (we number lines with universal
// newlines, as the gate does; gitleaks counts "\n" only).
func comparable(text string, out []string) []string {
	if strings.Contains(strings.ReplaceAll(text, "\r\n", ""), "\r") {
		for i, f := range out {
			out[i] = f[strings.IndexByte(f, ':')+1:]
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func ourFindings(t *testing.T, s *Scanner, path, text string) []string {
	t.Helper()
	got, err := s.Scan(path, "", text)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range got {
		out = append(out, fmt.Sprintf("%d:%s", f.Line, f.RuleID))
	}
	return comparable(text, out)
}

// TestSameFindingsAsGitleaks: on every corpus text, every near miss, and
// the adversarial texts of the line windows (window_test.go), our scanner
// reports exactly the rules and lines gitleaks' detector reports (gitleaks
// run without decoding, which we do not do).
func TestSameFindingsAsGitleaks(t *testing.T) {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	s := mustDefault(t)
	var texts []string
	for _, c := range secrettest.Cases() {
		texts = append(texts, c.Text, "x\n"+c.Text+"\ny", `key = "`+c.Secret+`"`)
	}
	texts = append(texts, secrettest.NearMisses()...)
	texts = append(texts, adversarialTexts(t)...)
	for _, text := range texts {
		for _, p := range []string{"EchoesVault/pages/p.md", "EchoesVault/assets/x.png"} {
			want := gitleaksFindings(t, d, p, text)
			got := ourFindings(t, s, p, text)
			if !slices.Equal(got, want) {
				t.Errorf("%s %q:\n got %v\nwant %v", p, text, got, want)
			}
		}
	}
}

// FuzzSameAsGitleaks: on any text, our findings are gitleaks' (the
// referee), in a page and in a YAML file (whose rules differ).
func FuzzSameAsGitleaks(f *testing.F) {
	for _, c := range secrettest.Cases() {
		f.Add(c.Text)
	}
	for _, n := range secrettest.NearMisses() {
		f.Add(n)
	}
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		f.Fatal(err)
	}
	s := mustDefault(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, p := range []string{"EchoesVault/pages/p.md", "EchoesVault/raw/k8s.yaml"} {
			want := gitleaksFindings(t, d, p, text)
			got := ourFindings(t, s, p, text)
			if !slices.Equal(got, want) {
				t.Fatalf("%s %q:\n got %v\nwant %v", p, text, got, want)
			}
		}
	})
}
