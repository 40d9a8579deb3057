package gate

// Severity says whether a check finding fails the gate.
type Severity int

const (
	// SeverityError fails the gate (exit status 1).
	SeverityError Severity = iota
	// SeverityWarning is reported, and fails the gate only with --strict.
	SeverityWarning
)

// String is the severity's name in reports: "error" or "warning".
func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// Rule ids of the findings added for the review gate (issue 9), next to
// the ones in check.go.
const (
	// ruleSecret: a known credential shape in a page, a daily entry or a team
	// memory (protocol §17: such data MUST NOT be stored).
	ruleSecret = "secret"
	// ruleMemoryInvalid: a committed team memory that the memory readers
	// skip (ecc-conformance §11.5), which makes every read incomplete
	// (ecc-conformance §13.1).
	ruleMemoryInvalid = "memory-invalid"
	// ruleMemoryDuplicateID: two team memories share an id (ecc-conformance §14).
	ruleMemoryDuplicateID = "memory-duplicate-id"
	// ruleMemoryBrokenLink: a team memory links to an id that no committed
	// team memory holds (ecc-conformance §14).
	ruleMemoryBrokenLink = "memory-broken-link"
	// ruleMemorySymlink: a symbolic link in the team memory vault, which
	// readers skip and doctor reports (ecc-conformance §11.2).
	ruleMemorySymlink = "memory-symlink"
	// ruleMemoryTruncated: the team vault exceeds the scan's budgets, so
	// every read of it is incomplete (ecc-conformance §11.1, ecc-conformance §13.1).
	ruleMemoryTruncated = "memory-truncated"
	// ruleMemoryProjectCommitted: a project-scope memory in the index or a
	// commit (ecc-seed §surfaces: repo-local operator context behind its own
	// fail-closed .gitignore).
	ruleMemoryProjectCommitted = "memory-project-committed"
	// ruleWikilinkMissing: a [[wikilink]] to a page that does not exist
	// (protocol §7.4).
	ruleWikilinkMissing = "wikilink-missing"
	// ruleAssetMissing: an ![[embed]] of a file missing from
	// EchoesVault/assets/ (protocol §7.4).
	ruleAssetMissing = "asset-missing"
)

// CheckRule describes one rule of `git echoes check`.
type CheckRule struct {
	Name     string
	Severity Severity
}

// CheckRules is every rule of the gate with its severity, in the order
// `check --help` documents them. Errors are what must never land: content
// the engines refuse or cannot read, files that break every clone, data
// that must not be stored. Warnings are review aids whose fix may be
// elsewhere (a page still to write, a memory in another scope).
var CheckRules = []CheckRule{
	{rulePageInvalid, SeverityError},
	{ruleNameCollision, SeverityError},
	{ruleConflictMarker, SeverityError},
	{ruleUnmergedPath, SeverityError},
	{ruleMarkerInvalid, SeverityError},
	{ruleMarkerMissing, SeverityError},
	{ruleWindowsName, SeverityError},
	{ruleUnsafeName, SeverityError},
	{ruleLocalOnlyCommitted, SeverityError},
	{ruleUntrackedDurable, SeverityError},
	{ruleSecret, SeverityError},
	{ruleMemoryInvalid, SeverityError},
	{ruleMemoryDuplicateID, SeverityError},
	{ruleMemoryTruncated, SeverityError},
	{ruleMemoryProjectCommitted, SeverityError},
	{ruleMemoryBrokenLink, SeverityWarning},
	{ruleMemorySymlink, SeverityWarning},
	{ruleWikilinkMissing, SeverityWarning},
	{ruleAssetMissing, SeverityWarning},
	{ruleSourceInvalid, SeverityWarning},
	{ruleMemoryStale, SeverityWarning},
}

var ruleSeverity = func() map[string]Severity {
	m := make(map[string]Severity, len(CheckRules))
	for _, r := range CheckRules {
		m[r.Name] = r.Severity
	}
	return m
}()

// Severity is the finding's severity, from its rule (CheckRules). An
// unknown rule is an error: the gate fails closed.
func (f Finding) Severity() Severity { return ruleSeverity[f.Rule] }
