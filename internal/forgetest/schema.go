// Package forgetest tests the forge integrations of issue 20 (the GitHub
// Action in action.yml, the scripts under scripts/forge/ and the GitLab CI
// template under templates/) for real: the install script against real
// release archives served from a loopback HTTP server, the action's scripts
// against real repositories with the environment a runner provides, and the
// Code Quality report against its documented schema.
package forgetest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/google/jsonschema-go/jsonschema"
)

// repoRoot is the repository's top folder, from this file's location.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// ValidateCodeQuality checks a Code Quality report against
// testdata/codequality.schema.json (GitLab's documented format) and that
// its fingerprints are unique: GitLab shows only the first issue of a
// fingerprint, so a duplicate would hide a finding.
func ValidateCodeQuality(report []byte) error {
	raw, err := os.ReadFile(filepath.Join(repoRoot(), "internal", "forgetest", "testdata", "codequality.schema.json"))
	if err != nil {
		return err
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	rs, err := schema.Resolve(nil)
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	var doc any
	if err := json.Unmarshal(report, &doc); err != nil {
		return fmt.Errorf("report is not JSON: %w", err)
	}
	if err := rs.Validate(doc); err != nil {
		return fmt.Errorf("report does not match the Code Quality schema: %w", err)
	}
	seen := map[string]bool{}
	for _, it := range doc.([]any) {
		fp := it.(map[string]any)["fingerprint"].(string)
		if seen[fp] {
			return fmt.Errorf("fingerprint %s appears twice", fp)
		}
		seen[fp] = true
	}
	return nil
}
