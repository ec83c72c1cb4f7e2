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
