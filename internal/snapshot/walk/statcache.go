package walk

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"time"
)

// StatCache remembers, per tree (the root directory it was loaded for), each file's size, modification time, inode
// and content hash, so that a second look at an unchanged tree reads no file. An entry is
// trusted only if the file's modification time is older than the cache by racyWindow: a file
// changed in the same instant as it was hashed is hashed again (the "racy git" problem).
type StatCache struct {
	file    string
	written int64 // UnixNano
	entries map[string]statEntry
}

type statEntry struct {
	size, mtime int64
	ino         uint64
	hash        [32]byte
}

const (
	statMagic  = "vulnbench-codegraph-stat\n"
	racyWindow = 2 * time.Second
)

// LoadStatCache reads the stat cache of root kept under cacheDir; an absent or damaged one is
// empty.
func LoadStatCache(cacheDir, root string) *StatCache {
	h := sha256.Sum256([]byte(root))
	sc := &StatCache{file: filepath.Join(cacheDir, "stat", hex.EncodeToString(h[:16])+".bin")}
	b, err := os.ReadFile(sc.file)
	if err != nil || !bytes.HasPrefix(b, []byte(statMagic)) || len(b) < len(statMagic)+4 {
		return sc
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) != sum {
		return sc
	}
	d := &decoder{data: string(body), off: len(statMagic)}
	written := int64(d.u())
	n := d.n(len(body))
	entries := make(map[string]statEntry, n)
	for range n {
		l := d.n(len(body))
		if d.err != nil || d.off+l+32 > len(d.data) {
			return sc
		}
		p := d.data[d.off : d.off+l]
		d.off += l
		var e statEntry
		copy(e.hash[:], d.data[d.off:d.off+32])
		d.off += 32
		e.size, e.mtime, e.ino = int64(d.u()), int64(d.u()), d.u()
		entries[p] = e
	}
	if d.err != nil {
		return sc
	}
	sc.written, sc.entries = written, entries
	return sc
}

// Lookup returns the cached hash of c when its stat data still match. A nil cache has nothing.
func (sc *StatCache) Lookup(c *File) ([32]byte, bool) {
	if sc == nil {
		return [32]byte{}, false
	}
	e, ok := sc.entries[c.Path]
	if !ok || e.size != c.Size || e.mtime != c.MTime || e.ino != c.Ino || c.MTime > sc.written-int64(racyWindow) {
		return [32]byte{}, false
	}
	return e.hash, true
}

// Save rewrites the cache with the candidates' hashes, unless it already holds exactly them.
func (sc *StatCache) Save(cands []File) error {
	if sc == nil {
		return nil
	}
	if len(sc.entries) == len(cands) {
		same := true
		for i := range cands {
			if _, ok := sc.Lookup(&cands[i]); !ok {
				same = false
				break
			}
		}
		if same {
			return nil
		}
	}
	size := len(statMagic) + 32
	for i := range cands {
		size += len(cands[i].Path) + 64
	}
	b := make([]byte, 0, size)
	b = append(b, statMagic...)
	b = binary.AppendUvarint(b, uint64(time.Now().UnixNano()))
	b = binary.AppendUvarint(b, uint64(len(cands)))
	for _, c := range cands {
		b = binary.AppendUvarint(b, uint64(len(c.Path)))
		b = append(b, c.Path...)
		b = append(b, c.Hash[:]...)
		b = binary.AppendUvarint(b, uint64(c.Size))
		b = binary.AppendUvarint(b, uint64(c.MTime))
		b = binary.AppendUvarint(b, c.Ino)
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	if err := writeFileAtomic(sc.file, b); err != nil {
		return fmt.Errorf("save file hashes: %w", err)
	}
	return nil
}

// decoder reads the cache's unsigned varints; the first fault sticks.
type decoder struct {
	data string
	off  int
	err  error
}

func (d *decoder) u() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := uvarint(d.data[d.off:])
	if n <= 0 {
		d.err = errors.New("truncated or corrupt stat cache")
		return 0
	}
	d.off += n
	return v
}

// n reads a count that must be below limit.
func (d *decoder) n(limit int) int {
	v := d.u()
	if d.err == nil && v >= uint64(limit) {
		d.err = fmt.Errorf("corrupt stat cache: %d out of range (limit %d)", v, limit)
		return 0
	}
	return int(v)
}

// writeFileAtomic writes b to name through a temporary file and a rename, so readers see the old
// file or the new one, never a part.
func writeFileAtomic(name string, b []byte) error {
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

// uvarint is binary.Uvarint over a string.
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
