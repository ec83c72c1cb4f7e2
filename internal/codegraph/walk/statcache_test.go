package walk

import (
	"testing"
	"time"
)

func TestStatCacheRacy(t *testing.T) {
	dir := t.TempDir()
	sc := LoadStatCache(dir, "/repo")
	now := time.Now().UnixNano()
	cands := []File{
		{Path: "old.c", Size: 1, MTime: now - int64(time.Hour), Hash: [32]byte{1}},
		{Path: "new.c", Size: 1, MTime: now, Hash: [32]byte{2}}, // changed as it was hashed
	}
	if err := sc.Save(cands); err != nil {
		t.Fatal(err)
	}
	sc = LoadStatCache(dir, "/repo")
	if h, ok := sc.Lookup(&cands[0]); !ok || h != cands[0].Hash {
		t.Errorf("old file: %v %v", h, ok)
	}
	if _, ok := sc.Lookup(&cands[1]); ok {
		t.Error("a file modified within the racy window was trusted")
	}
	moved := cands[0]
	moved.Ino++
	if _, ok := sc.Lookup(&moved); ok {
		t.Error("a file with another inode was trusted")
	}
}
