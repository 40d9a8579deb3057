// Package fsx holds the low-level file-system primitives of git-echoes:
// atomic replacement writes (conformance §5), exclusive creation, Python-
// compatible path resolution and confinement (§3), and the shared
// .echoes-vault/lock (§6) interoperable with the reference Python engine.
//
// The package knows nothing about the meaning of vault files.
package fsx
