package gate

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// windowsBadPaths are vault paths that cannot exist on Windows, as git
// stores them; stage adds them to the index with plumbing only, so the test
// needs no file of that name on disk and runs on Windows too.
var windowsBadPaths = []string{
	"EchoesVault/pages/CON.md",
	"EchoesVault/pages/re: draft.md", // not "x:..." (a drive letter to go-git on Windows)
	"EchoesVault/assets/aux/logo.png",
	"EchoesVault/assets/aux/other.png", // the same bad directory: one finding
	"EchoesVault/raw/draft./x.md",
	"EchoesVault/pages/lpt\u00b9 .md",
}

// check reports names that cannot exist on Windows on every OS, from the
// index and from a commit (the pre-commit hook and the CI gate), each bad
// path once and a bad directory once; a clean vault has no such finding.
func TestCheckWindowsNames(t *testing.T) {
	sb, e := checkRepo(t)
	root := e.WS.Root
	blob, err := sb.Run(root, nil, []byte(goodPage), "hash-object", "-w", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	var info strings.Builder
	for _, p := range windowsBadPaths {
		info.WriteString("100644 " + strings.TrimSpace(blob) + "\t" + p + "\n")
	}
	if _, err := sb.Run(root, nil, []byte(info.String()), "update-index", "--index-info"); err != nil {
		t.Fatal(err)
	}
	sb.Git(root, "commit", "-qm", "windows names")
	stage := func(p string) {
		t.Helper()
		if _, err := sb.Run(root, nil, []byte("100644 "+strings.TrimSpace(blob)+"\t"+p+"\n"), "update-index", "--index-info"); err != nil {
			t.Fatal(err)
		}
	}
	want := []Finding{
		{Path: "EchoesVault/assets/aux", Rule: ruleWindowsName, Message: "name cannot exist on Windows: 'aux' (reserved device name AUX); git checkout fails for every Windows clone, so rename it"},
		{Path: "EchoesVault/pages/CON.md", Rule: ruleWindowsName, Message: "name cannot exist on Windows: 'CON.md' (reserved device name CON); git checkout fails for every Windows clone, so rename it"},
		{Path: "EchoesVault/pages/lpt\u00b9 .md", Rule: ruleWindowsName, Message: "name cannot exist on Windows: 'lpt\u00b9 .md' (reserved device name LPT\u00b9); git checkout fails for every Windows clone, so rename it"},
		{Path: "EchoesVault/pages/re: draft.md", Rule: ruleWindowsName, Message: "name cannot exist on Windows: 're: draft.md' (character ':' is not allowed); git checkout fails for every Windows clone, so rename it"},
		{Path: "EchoesVault/raw/draft.", Rule: ruleWindowsName, Message: "name cannot exist on Windows: 'draft.' (ends with '.'); git checkout fails for every Windows clone, so rename it"},
	}
	for _, src := range []CheckSource{CheckStaged, CheckRev} {
		res := mustCheck(t, e, CheckOptions{Source: src, Rev: "HEAD"})
		if !reflect.DeepEqual(res.Findings, want) {
			t.Errorf("%v findings:\n got %#v\nwant %#v", src, res.Findings, want)
		}
		if res.Pages != 4 { // good, CON, "re: draft", lpt¹: still pages, validated as such
			t.Errorf("%v: %d pages, want 4", src, res.Pages)
		}
	}
	if res := mustCheck(t, e, CheckOptions{Source: CheckRev, Rev: "HEAD~1"}); !res.OK() {
		t.Errorf("the commit before has findings: %+v", res.Findings)
	}
	// A control character: reported from the index; a commit holding one
	// is refused as unreadable by the object reader (go-git rejects such
	// tree entries), so the CI gate fails closed on it too.
	ctrl := "EchoesVault/daily/2026-01-01/x\x01.md"
	stage(ctrl)
	ctrlFinding := Finding{Path: ctrl, Rule: ruleWindowsName, Message: "name cannot exist on Windows: 'x\\x01.md' (control character U+0001 is not allowed); git checkout fails for every Windows clone, so rename it"}
	want = append(want[:1], append([]Finding{ctrlFinding}, want[1:]...)...)
	if res := mustCheck(t, e, CheckOptions{Source: CheckStaged}); !reflect.DeepEqual(res.Findings, want) {
		t.Errorf("staged findings:\n got %#v\nwant %#v", res.Findings, want)
	}
	sb.Git(root, "commit", "-qm", "control character")
	if _, err := Check(e, CheckOptions{Source: CheckRev, Rev: "HEAD"}); err == nil || !strings.HasPrefix(err.Error(), "Cannot read revision 'HEAD': ") {
		t.Errorf("check --rev of a control-character path: %v, want a read error", err)
	}
	if runtime.GOOS == "windows" {
		return // these names cannot be created on disk here: that is the point
	}
	// The work tree: the same files written on disk.
	sb.Git(root, "checkout", "-qf", "HEAD")
	res := mustCheck(t, e, CheckOptions{})
	if !reflect.DeepEqual(res.Findings, want) {
		t.Errorf("work tree findings:\n got %#v\nwant %#v", res.Findings, want)
	}
}
