// Package binfile holds what vulnbench's persisted binary caches share (the code graph's
// indexes and parse results, the walk's stat cache): files replaced atomically, and a reader of
// unsigned varints and byte runs over a file's contents whose first fault sticks.
package binfile

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// WriteAtomic writes b to name through a temporary file beside it and a rename, so readers see
// the old file or the new one, never a part; name's directory is made if missing.
func WriteAtomic(name string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// Reader reads Data from Off. The first fault is kept in Err and every later read returns zero
// values; What names the file kind in its messages ("index", "stat cache").
type Reader struct {
	Data string // the whole file: byte runs are slices of it
	Off  int
	Err  error
	What string
}

// U reads an unsigned varint.
func (r *Reader) U() uint64 {
	if r.Err != nil {
		return 0
	}
	v, n := uvarint(r.Data[r.Off:])
	if n <= 0 {
		r.Err = fmt.Errorf("truncated or corrupt %s", r.What)
		return 0
	}
	r.Off += n
	return v
}

// N reads a count or index that must be below limit.
func (r *Reader) N(limit int) int {
	v := r.U()
	if r.Err == nil && v >= uint64(limit) {
		r.Err = fmt.Errorf("corrupt %s: %d out of range (limit %d)", r.What, v, limit)
		return 0
	}
	return int(v)
}

// Take reads the next n bytes ("" once Err is set or fewer are left).
func (r *Reader) Take(n int) string {
	if r.Err != nil {
		return ""
	}
	if n < 0 || r.Off+n > len(r.Data) {
		r.Err = fmt.Errorf("truncated %s", r.What)
		return ""
	}
	s := r.Data[r.Off : r.Off+n]
	r.Off += n
	return s
}

// uvarint is binary.Uvarint over a string (no copy to a []byte).
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		b := s[i]
		if b < 0x80 {
			return x | uint64(b)<<shift, i + 1
		}
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	return 0, 0
}
