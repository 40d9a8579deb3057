//go:build windows || (unix && (echoes_portable || !(linux || darwin || freebsd)))

package fsx

// FileID is LstatFileID for the file name (a single path component) of d.
func (d *Dir) FileID(name string) (FileID, error) { return LstatFileID(d.join(name)) }
