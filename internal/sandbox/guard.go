//go:build !vulnbench_unguarded

package sandbox

// unguardedRead is the reader switched off: in vulnbench it never is (no file is read back but
// by readFile's rules). Built with the tag vulnbench_unguarded (unguarded.go), it reads as
// vulnbench once did, following links, so that the hostile-agent battery can show it fails
// then.
func (b *beneath) unguardedRead(string, int64) ([]byte, bool) { return nil, false }
