package curate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// text reads a text of n bytes at off back from the spill file, into buf.
func (p *pipeline) text(buf []byte, off int64, n int32) ([]byte, error) {
	buf = slices.Grow(buf[:0], int(n))[:n]
	if _, err := p.spill.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, fmt.Errorf("curate: read spill: %w", err)
	}
	return buf, nil
}

// caseID is stable: a hash of the project, commit, file, function, version and normalised text.
func (p *pipeline) caseID(c *candidate) string {
	if c.id != "" {
		return c.id
	}
	r := &p.rows[c.row]
	cm := &p.commits[r.commit]
	h := sha256.New()
	version := "before"
	if c.after {
		version = "after"
	}
	for _, s := range []string{cm.project, cm.id, r.file, r.function, version, hex.EncodeToString(c.hash[:])} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	c.id = "pv-" + hex.EncodeToString(h.Sum(nil))[:20]
	return c.id
}

func language(file string) string {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".c++":
		return "cpp"
	}
	return ""
}

func (p *pipeline) write(dir string, cands []candidate) error {
	var buf []byte
	emit := func(w *suite.Writer, c *candidate) error {
		r := &p.rows[c.row]
		cm := &p.commits[r.commit]
		off, n, label, version := r.offB, r.lenB, suite.Ben, "before"
		if c.after {
			off, n, version = r.offA, r.lenA, "after"
		}
		if c.vul {
			label = suite.Vul
		}
		var err error
		if buf, err = p.text(buf, off, n); err != nil {
			return err
		}
		src := map[string]any{"file": r.file, "function": r.function, "version": version}
		if r.cve != "" {
			src["cve"] = r.cve
		}
		return w.Write(&suite.Case{ID: p.caseID(c), Kind: suite.KindFunction, Label: label, Pair: c.pair,
			Split: suite.Splits[c.split], Project: cm.project, Commit: cm.id, Date: cm.date, Language: language(r.file),
			CWE: p.cwes[r.cwe], CVE: r.cve, Code: string(buf), Source: src, Meta: map[string]any{"rule": c.rule}})
	}
	for s, name := range suite.Splits {
		for _, paired := range []bool{false, true} {
			path := filepath.Join(dir, name+".jsonl")
			if paired {
				path = filepath.Join(dir, name+"_paired.jsonl")
			}
			err := suite.WriteFileAtomic(path, func(f io.Writer) error {
				w := suite.NewWriter(f)
				for i := range cands {
					c := &cands[i]
					if c.drop || int(c.split) != s || (paired && c.pair == "") {
						continue
					}
					if err := emit(w, c); err != nil {
						return fmt.Errorf("write %s: %w", path, err)
					}
				}
				if err := w.Flush(); err != nil {
					return fmt.Errorf("write %s: %w", path, err)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	b, err := json.MarshalIndent(p.rep, "", "  ")
	if err != nil {
		return fmt.Errorf("curate: report: %w", err)
	}
	return suite.WriteFileAtomic(filepath.Join(dir, "report.json"), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
