package walk

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"time"

	"github.com/vulnbench/vulnbench/internal/binfile"
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
	d := &binfile.Reader{Data: string(body), Off: len(statMagic), What: "stat cache"}
	written := int64(d.U())
	n := d.N(len(body))
	entries := make(map[string]statEntry, n)
	for range n {
		p := d.Take(d.N(len(body)))
		var e statEntry
		copy(e.hash[:], d.Take(32))
		if d.Err != nil {
			return sc
		}
		e.size, e.mtime, e.ino = int64(d.U()), int64(d.U()), d.U()
		entries[p] = e
	}
	if d.Err != nil {
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
	if err := binfile.WriteAtomic(sc.file, b); err != nil {
		return fmt.Errorf("save file hashes: %w", err)
	}
	return nil
}
