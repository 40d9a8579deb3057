// Package importer turns the memory people already keep elsewhere into
// EchoesVault pages or ECC memories (issue 21, `git echoes import`): the
// official MCP memory server's knowledge graph (memory.jsonl of
// @modelcontextprotocol/server-memory), Basic Memory and Obsidian folders,
// and one named section of AGENTS.md or CLAUDE.md.
//
// It is pure domain: it never prints. Plan reads the source with bounded,
// no-follow reads, refuses what cannot be imported (secrets by the gate's
// scanner, names no OS can check out, malformed records) and computes every
// byte it would write; Apply writes that plan through the engine's locked,
// atomic, hash-checked writer (gitvault.Engine.WriteImport, ending with one
// rebuild-index) or the memory vault's create-only save.
//
// Every imported page records where it came from and what the import wrote
// in two additional frontmatter fields, which protocol §7.2 and protocol §20 allow:
// imported_from (the source and the record) and import_sha256 (the SHA-256
// of the page text without that line). A re-run compares them: a page still
// holding what the last import wrote is replaced (or left alone when
// nothing changed, so a re-run writes the same bytes); a page edited since
// is never overwritten without Force.
package importer
