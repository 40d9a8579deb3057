package forgetest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestDocSnippets: every YAML snippet of README.md and docs/*.md parses
// (scripts/forge/lint.sh runs actionlint on the workflow ones), the GitHub
// snippets that use the action name only its inputs, and the GitLab include
// names the template this repository has.
func TestDocSnippets(t *testing.T) {
	root := repoRoot()
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	var action struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	raw, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	fence := regexp.MustCompile("(?ms)^```ya?ml\\s*\n(.*?)^```")
	uses, gitlab := 0, 0
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fence.FindAllStringSubmatch(string(text), -1) {
			var v any
			if err := yaml.Unmarshal([]byte(m[1]), &v); err != nil {
				t.Errorf("%s: a YAML snippet does not parse: %v\n%s", doc, err, m[1])
				continue
			}
			if strings.Contains(m[1], "uses: git-echoes/git-echoes@") {
				uses++
				var wf struct {
					Jobs map[string]struct {
						Steps []struct {
							Uses string         `yaml:"uses"`
							With map[string]any `yaml:"with"`
						} `yaml:"steps"`
					} `yaml:"jobs"`
				}
				yaml.Unmarshal([]byte(m[1]), &wf)
				for _, job := range wf.Jobs {
					for _, step := range job.Steps {
						for k := range step.With {
							if _, ok := action.Inputs[k]; !ok && strings.HasPrefix(step.Uses, "git-echoes/git-echoes@") {
								t.Errorf("%s: input %s is not an input of action.yml", doc, k)
							}
						}
					}
				}
			}
			if strings.Contains(m[1], "templates/git-echoes/template.yml") {
				gitlab++
			}
		}
	}
	if uses == 0 || gitlab == 0 {
		t.Errorf("the docs show the action %d times and the GitLab template %d times; want both", uses, gitlab)
	}
	if _, err := os.Stat(filepath.Join(root, "templates", "git-echoes", "template.yml")); err != nil {
		t.Error(err)
	}
}
