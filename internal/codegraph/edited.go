package codegraph

import (
	"crypto/sha256"
	"os"
	"path/filepath"

	"github.com/vulnbench/vulnbench/internal/codegraph/store"
	"github.com/vulnbench/vulnbench/internal/codegraph/walk"
)

// previous finds the previous content of an edited file for a part parse (extract's
// IndexEdited): the file at the same path in the base snapshot's directory, provided that the
// base parsed exactly that content in the same language and recorded its regions. A base
// directory that changed since it was indexed gives other hashes, so its files are not used.
type previous struct {
	root  string
	prior map[store.Key]*FileResult
}

// of returns the previous content of the file at path (slash-separated) and its parse result,
// or nil when there is none to reparse from.
func (p *previous) of(path string, l Lang) ([]byte, *FileResult) {
	if p == nil || p.root == "" || len(p.prior) == 0 {
		return nil, nil
	}
	name := filepath.Join(p.root, filepath.FromSlash(path))
	st, err := os.Lstat(name)
	if err != nil || !st.Mode().IsRegular() {
		return nil, nil
	}
	src, err := walk.ReadFile(name, st.Size(), nil)
	if err != nil {
		return nil, nil
	}
	res := p.prior[store.Key{Hash: sha256.Sum256(src), Lang: l}]
	if res == nil || res.Regions == nil {
		return nil, nil
	}
	return src, res
}
