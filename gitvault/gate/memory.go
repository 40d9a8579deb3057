package gate

import (
	"fmt"
	"github.com/git-echoes/git-echoes/gitvault"
	"sort"
	"strings"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/frontmatter"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// memoryFindings reports the ECC memory vault's problems in the snapshot:
// project-scope memories it holds (they must never be committed), unmerged
// memory paths, and the team scope validated as the memory readers and
// doctor read it (memory.CheckFiles).
func memoryFindings(s *gitvault.Snapshot, secrets *secretGate) []Finding {
	var out []Finding
	for _, p := range s.Gate.ProjectMem {
		out = append(out, Finding{Path: p, Rule: ruleMemoryProjectCommitted,
			Message: "project-scope ECC memory is " + s.LocalVerb + "; project memories are local operator context " +
				"and must never be committed (run: git rm --cached -- " + gitvault.ShellQuote(p) + ")"})
	}
	for _, p := range s.Gate.Unmerged {
		out = append(out, Finding{Path: p, Rule: ruleUnmergedPath,
			Message: "unresolved merge conflict: resolve the file, then git add it"})
	}
	if len(s.Gate.Team) == 0 && len(s.Gate.TeamLinks) == 0 {
		return out
	}
	// Team memories are checked out by every clone, Windows ones included.
	out = append(out, windowsNameFindings(func(report func(string)) {
		for _, f := range s.Gate.Team {
			report(f.Path)
		}
		for _, p := range s.Gate.TeamLinks {
			report(p)
		}
	})...)
	files := make([]memory.GateFile, 0, len(s.Gate.Team)+len(s.Gate.TeamLinks))
	// The documents CheckFiles reads are kept for the conflict-marker
	// search (a conflict inside a body still parses as a memory).
	read := make([][]byte, len(s.Gate.Team))
	for i, f := range s.Gate.Team {
		files = append(files, memory.GateFile{Rel: strings.TrimPrefix(f.Path, gitvault.MemoryTeamPrefix), Regular: f.Regular,
			Read: func() ([]byte, error) {
				data, err := f.Read()
				read[i] = data
				return data, err
			}})
	}
	for _, p := range s.Gate.TeamLinks {
		files = append(files, memory.GateFile{Rel: strings.TrimPrefix(p, gitvault.MemoryTeamPrefix), Symlink: true})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Rel < files[j].Rel })
	issues, docs := memory.CheckFiles("team", files)
	s.Gate.Documents = docs
	for _, is := range issues {
		p := gitvault.MemoryTeamPrefix + is.Rel
		f := Finding{Path: p, Line: is.Line}
		switch is.Code {
		case memory.GateSecret:
			continue // the gate's own scanner reports them (teamSecretFindings)
		case memory.DiagInvalidDocument:
			f.Rule, f.Message = ruleMemoryInvalid, "ECC memory document is invalid or unreadable (ecc.memory.v1); "+memoryReadersSkip
		case memory.DiagLocationMismatch:
			f.Rule, f.Message = ruleMemoryInvalid, "ECC memory "+pyjson.ReprString(is.ID)+" does not match its vault location "+
				"(its scope must be 'team' and its first directory <kind>s/); "+memoryReadersSkip
		case memory.DiagSuspectedSecret:
			f.Rule, f.Message = ruleMemoryInvalid, "ECC memory "+pyjson.ReprString(is.ID)+" is quarantined by the memory readers "+
				"(suspected "+strings.Join(is.Labels, ", ")+"); "+memoryReadersSkip
		case memory.GateDuplicateID:
			others := make([]string, len(is.Others))
			for i, o := range is.Others {
				others[i] = gitvault.MemoryTeamPrefix + o
			}
			f.Rule, f.Message = ruleMemoryDuplicateID, "ECC memory id "+pyjson.ReprString(is.ID)+" is also held by "+
				strings.Join(others, ", ")+"; reads of it fail as duplicated"
		case memory.GateBrokenLink:
			f.Rule, f.Message = ruleMemoryBrokenLink, "ECC memory "+pyjson.ReprString(is.ID)+" links to "+pyjson.ReprString(is.Target)+
				", which no team memory of this snapshot holds"
		case memory.GateSymlink:
			f.Rule, f.Message = ruleMemorySymlink, "symbolic link in the team memory vault: memory readers never follow it and doctor reports it"
		case memory.GateTruncated:
			f.Path, f.Rule = strings.TrimSuffix(gitvault.MemoryTeamPrefix, "/"), ruleMemoryTruncated
			f.Message = fmt.Sprintf("the team memory vault exceeds what a memory scan reads (%d entries, %d MiB, %d directory levels); "+
				"every memory read becomes incomplete", memory.MaxScanEntries, memory.MaxScanBytes>>20, memory.MaxScanDepth)
		default:
			f.Rule, f.Message = ruleMemoryInvalid, "ECC memory check: "+is.Code
		}
		out = append(out, f)
	}
	out = append(out, teamSecretFindings(s, secrets, read)...)
	for i, data := range read {
		for _, m := range frontmatter.FindConflictMarkers(string(data)) {
			out = append(out, Finding{Path: s.Gate.Team[i].Path, Line: m.Line, Rule: ruleConflictMarker,
				Message: "unresolved Git conflict marker " + pyjson.ReprString(m.Text)})
		}
	}
	return out
}

const memoryReadersSkip = "memory readers skip it and every memory read becomes incomplete"
