//go:build !unix

package cli

// execTemporal does nothing here: Main starts prose-temporal as a child
// where a process cannot replace itself, and a prose with the engine
// needs no hand-off.
func execTemporal([]string) {}
