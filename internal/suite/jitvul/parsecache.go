package jitvul

import (
	"bytes"
	"container/list"
	"hash/maphash"
	"sync"

	"github.com/vulnbench/vulnbench/internal/codegraph"
)

// parseCache keeps the definitions of the files a session parsed lately, keyed by path and
// content: a fix's two versions are parsed once whether the builder or the tracer asks, and
// consecutive fixes of one file share a version. Bounded by the bytes of content it holds;
// the least recently used entries go first. Safe for concurrent use.
type parseCache struct {
	mu    sync.Mutex
	seed  maphash.Seed
	max   int
	bytes int
	lru   *list.List // of *parsed, most recent first
	byKey map[parseKey]*list.Element
}

type parseKey struct {
	path string
	hash uint64
}

type parsed struct {
	key   parseKey
	src   []byte // compared in full on a hit: a hash collision is never a wrong answer
	funcs []codegraph.Func
	calls []codegraph.Call
	skip  string
}

// defaultParseCacheBytes bounds the cached contents of a session.
const defaultParseCacheBytes = 64 << 20

func newParseCache(max int) *parseCache {
	return &parseCache{seed: maphash.MakeSeed(), max: max, lru: list.New(), byKey: map[parseKey]*list.Element{}}
}

func (c *parseCache) key(p string, src []byte) parseKey {
	return parseKey{path: p, hash: maphash.Bytes(c.seed, src)}
}

// get returns the cached result for p with content src.
func (c *parseCache) get(k parseKey, src []byte) (*parsed, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok || !bytes.Equal(e.Value.(*parsed).src, src) {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*parsed), true
}

// put stores a result; contents larger than a quarter of the bound are not kept.
func (c *parseCache) put(k parseKey, src []byte, funcs []codegraph.Func, calls []codegraph.Call, skip string) {
	if len(src) > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; ok {
		return
	}
	c.byKey[k] = c.lru.PushFront(&parsed{key: k, src: bytes.Clone(src), funcs: funcs, calls: calls, skip: skip})
	c.bytes += len(src)
	for c.bytes > c.max {
		e := c.lru.Back()
		x := e.Value.(*parsed)
		c.lru.Remove(e)
		delete(c.byKey, x.key)
		c.bytes -= len(x.src)
	}
}
