// Package memory implements the ECC memory vault (schema ecc.memory.v1): a
// create-only store of human-readable Markdown memories shared by coding
// harnesses, with bounded lexical search, direct reads with derived
// backlinks, and a read-only doctor.
//
// The package is byte- and behaviour-compatible with the reference Node.js
// implementation (see CONFORMANCE-ecc.md): documents written here are the
// exact bytes the reference writes, and the acceptance rules for reading
// are the reference's, so both sides agree on which files are valid, which
// are quarantined and therefore on search results and read completeness.
//
// It is a library: it never prints and never exits. Every operation takes a
// resolved *Roots (see ResolveRoots), validates its input before touching
// the filesystem, and returns typed results or an *Error carrying the
// reference's message and a stable Code.
//
// Identity rules for adapters such as an MCP server:
//
//   - SaveInput.SourceHarness is the writer identity; an adapter sets it
//     from its own configuration, never from client input.
//   - SearchOptions.TargetHarness, ReadOptions.TargetHarness and
//     DoctorOptions.TargetHarness restrict results to memories targeted at
//     that harness or "all"; the empty string means no filter (CLI).
//   - Scopes default to project and team; the user scope is scanned only
//     when it is named explicitly. Authorising the user scope is the
//     adapter's job; the library only honours what it is asked for.
//   - Read fails with CodeIncomplete (ECC_MEMORY_INCOMPLETE) whenever the
//     scan cannot prove absence, uniqueness or complete backlinks; no
//     partial memory is returned with it. Adapters map it to their own
//     error (MCP: MEMORY_READ_INCOMPLETE).
package memory
