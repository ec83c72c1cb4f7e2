//go:build vulnbench_unguarded

package sandbox

import (
	"io"
	"os"
	"strconv"
)

// unguardedRead reads rel as os.ReadFile would, following every link (on the host, an absolute
// one leaves the sandbox): the reader switched off, built only with -tags vulnbench_unguarded
// for the battery's proof that it can fail. The cap still holds, so the test machine lives.
func (b *beneath) unguardedRead(rel string, max int64) ([]byte, bool) {
	f, err := os.Open("/proc/self/fd/" + strconv.Itoa(b.fd) + "/" + rel)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max))
	return data, err == nil
}
