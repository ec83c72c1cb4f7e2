package llmtest

import (
	"encoding/binary"
	"hash/fnv"
	"sync"
	"sync/atomic"
)

// Fixed answers every request with text.
func Fixed(text string) Handler {
	return func(Request) Reply { return Reply{Text: text} }
}

// Sequence answers its i-th call with replies[i]; the last reply repeats.
// With no replies, it answers an empty text.
func Sequence(replies ...Reply) Handler {
	var calls atomic.Int64
	return func(Request) Reply {
		i := calls.Add(1) - 1
		if len(replies) == 0 {
			return Reply{}
		}
		return replies[min(i, int64(len(replies)-1))]
	}
}

// FailFirst answers its first n calls with fault, and the others as h does.
func FailFirst(n int, fault Reply, h Handler) Handler {
	var calls atomic.Int64
	return func(r Request) Reply {
		if calls.Add(1) <= int64(n) {
			return fault
		}
		return h(r)
	}
}

// FaultRate answers a share p of requests with fault, and the others as h
// does. Which ones is pseudo-random but reproducible: it depends on seed, the
// request's provider, model and prompt, and how many times that same request
// was seen before, not on the order of arrival. So a concurrent run faults
// the same requests every time, and a retried request gets a fresh draw.
func FaultRate(p float64, seed int64, fault Reply, h Handler) Handler {
	var mu sync.Mutex
	seen := make(map[uint64]uint64)
	return func(r Request) Reply {
		k := fnv.New64a()
		k.Write([]byte(r.Provider))
		k.Write([]byte{0})
		k.Write([]byte(r.Model))
		k.Write([]byte{0})
		k.Write([]byte(r.Prompt()))
		key := k.Sum64()
		mu.Lock()
		occurrence := seen[key]
		seen[key]++
		mu.Unlock()

		var buf [24]byte
		binary.LittleEndian.PutUint64(buf[0:], uint64(seed))
		binary.LittleEndian.PutUint64(buf[8:], key)
		binary.LittleEndian.PutUint64(buf[16:], occurrence)
		d := fnv.New64a()
		d.Write(buf[:])
		if float64(mix(d.Sum64())>>11)/(1<<53) < p {
			return fault
		}
		return h(r)
	}
}

// mix is splitmix64's finaliser: it spreads FNV's poorly mixed high bits.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
