package fetch

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Manifest is the advisories directory's record of what Advisories fetched: the exports read
// (the latest of each ecosystem and source) and, per id asked for, the records found and when.
type Manifest struct {
	Updated    time.Time       `json:"updated"`
	Sources    []Source        `json:"sources"`
	Advisories []ManifestEntry `json:"advisories"`
}

// ManifestEntry is one id as last fetched.
type ManifestEntry struct {
	ID        string    `json:"id"`
	Records   []string  `json:"records"` // empty: no record names it
	Withdrawn bool      `json:"withdrawn,omitempty"`
	Checked   time.Time `json:"checked"`
}

// ReadManifest reads DIR's manifest; a directory without one gives an empty Manifest.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, os.ErrNotExist) {
		return &Manifest{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("advisories manifest: %w", err)
	}
	m := &Manifest{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("advisories manifest %s: %w", filepath.Join(dir, ManifestName), err)
	}
	return m, nil
}

// writeManifest merges rep into DIR's manifest: a source replaces the one of the same
// ecosystem and origin, an id's entry replaces its earlier one.
func writeManifest(dir string, now time.Time, rep *AdvisoryReport) error {
	m, err := ReadManifest(dir)
	if err != nil {
		return err
	}
	now = now.UTC()
	m.Updated = now
	for _, s := range rep.Sources {
		m.Sources = slices.DeleteFunc(m.Sources, func(o Source) bool { return o.Ecosystem == s.Ecosystem && o.From == s.From })
		m.Sources = append(m.Sources, s)
	}
	byID := map[string]int{}
	for i, e := range m.Advisories {
		byID[e.ID] = i
	}
	for _, f := range rep.Found {
		e := ManifestEntry{ID: f.ID, Records: f.Records, Withdrawn: f.Withdrawn, Checked: now}
		if e.Records == nil {
			e.Records = []string{}
		}
		if i, ok := byID[f.ID]; ok {
			m.Advisories[i] = e
			continue
		}
		byID[f.ID] = len(m.Advisories)
		m.Advisories = append(m.Advisories, e)
	}
	slices.SortFunc(m.Advisories, func(a, b ManifestEntry) int { return strings.Compare(a.ID, b.ID) })
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("advisories manifest: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".manifest-*")
	if err != nil {
		return fmt.Errorf("advisories manifest: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("advisories manifest: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("advisories manifest: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("advisories manifest: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, ManifestName)); err != nil {
		return fmt.Errorf("advisories manifest: %w", err)
	}
	return nil
}

// reusable is the manifest's source of the same export as src when every id src looks for
// was looked for in it: its records are in the directory already, and its validators may ask
// the server whether it changed; nil otherwise.
func (m *Manifest) reusable(src Source) *Source {
	for i := range m.Sources {
		o := &m.Sources[i]
		if o.Ecosystem != src.Ecosystem || o.From != src.From || (o.ETag == "" && o.LastModified == "") {
			continue
		}
		for _, id := range src.Searched {
			if _, ok := slices.BinarySearch(o.Searched, id); !ok {
				return nil
			}
		}
		return o
	}
	return nil
}

// compare says how found (what the directory holds now) differs from the manifest: a record it
// lists that is gone, records it did not list, an id it never fetched.
func (m *Manifest) compare(found []Found) []string {
	if len(m.Sources) == 0 {
		return []string{"the directory has no manifest (" + ManifestName + "): nothing here was fetched by vulnbench fetch advisories"}
	}
	byID := map[string]ManifestEntry{}
	for _, e := range m.Advisories {
		byID[e.ID] = e
	}
	var out []string
	for _, f := range found {
		e, ok := byID[f.ID]
		if !ok {
			out = append(out, f.ID+": never fetched into this directory (not in its manifest)")
			continue
		}
		var gone, extra []string
		for _, r := range e.Records {
			if !slices.Contains(f.Records, r) {
				gone = append(gone, r)
			}
		}
		for _, r := range f.Records {
			if !slices.Contains(e.Records, r) {
				extra = append(extra, r)
			}
		}
		if len(gone) > 0 {
			out = append(out, fmt.Sprintf("%s: the manifest lists %s (checked %s), %s", f.ID, strings.Join(gone, ", "), e.Checked.Format(time.RFC3339), goneWords))
		}
		if len(extra) > 0 {
			out = append(out, fmt.Sprintf("%s: %s in the directory, not written by a fetch (the manifest lists %s)", f.ID, strings.Join(extra, ", "), listOrNone(e.Records)))
		}
	}
	return out
}

// goneWords end a difference that is a lost record (AdvisoryReport.Lost).
const goneWords = "no longer in the directory"

// Lost reports whether the offline comparison found a record the manifest lists gone.
func (rep *AdvisoryReport) Lost() bool {
	for _, d := range rep.Differences {
		if strings.HasSuffix(d, goneWords) {
			return true
		}
	}
	return false
}

func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
