package fetch

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// DefaultSource is OSV's published bucket of per-ecosystem exports: SOURCE/ECOSYSTEM/all.zip.
const DefaultSource = "https://osv-vulnerabilities.storage.googleapis.com"

// ManifestName is the file in the advisories directory that records what was fetched, from
// where and when. It is JSON, named so that advisory.Open does not take it for a record.
const ManifestName = "vulnbench-advisories.manifest"

// ErrSource: an export could not be had (no such file, an HTTP error, not a zip).
var ErrSource = errors.New("advisory export unavailable")

// AdvisoryNeed is an advisory id a suite's cases name (cve, vex.advisory) and the ecosystems
// their vex.ecosystem names.
type AdvisoryNeed struct {
	ID         string
	Ecosystems []string
	Cases      int
}

// AdvisoryNeeds lists the advisory ids of a suite file's cases: every case's cve and a vex
// case's vex.advisory, upper-cased, in the order first named.
func AdvisoryNeeds(suitePath string) ([]AdvisoryNeed, []error, error) {
	var needs []AdvisoryNeed
	byID := map[string]int{}
	_, problems, err := suite.Scan(suitePath, nil, false, func(c *suite.Case, _ int) error {
		ids := []string{c.CVE}
		eco := ""
		if c.VEX != nil {
			ids = append(ids, c.VEX.Advisory)
			eco = c.VEX.Ecosystem
		}
		for _, id := range ids {
			id = strings.ToUpper(strings.TrimSpace(id))
			if id == "" {
				continue
			}
			i, ok := byID[id]
			if !ok {
				i = len(needs)
				byID[id] = i
				needs = append(needs, AdvisoryNeed{ID: id})
			}
			n := &needs[i]
			n.Cases++
			if eco != "" && !slices.Contains(n.Ecosystems, eco) {
				n.Ecosystems = append(n.Ecosystems, eco)
			}
		}
		return nil
	})
	return needs, problems, err
}

// AdvisoryOptions configure Advisories.
type AdvisoryOptions struct {
	Dir string // the --advisories directory; made if needed
	// From is where the records are: a base URL (http, https) or a directory holding
	// ECOSYSTEM/all.zip (OSV's exports or a mirror of them); or a directory of OSV records (any
	// tree of .json files, such as a folder of OSV files or a checkout of GitHub's advisory
	// database, advisories/github-reviewed/YYYY/MM/GHSA-*/GHSA-*.json), read whatever the
	// ecosystems; "": DefaultSource.
	From string
	// Ecosystems are the exports to read; none: those the needs name.
	Ecosystems []string
	// Offline reads no export: it checks what Dir holds already.
	Offline  bool
	Client   *http.Client     // nil: http.DefaultClient
	Now      func() time.Time // nil: time.Now
	Progress func(AdvisoryEvent)
}

// AdvisoryEvent is progress: an ecosystem's export being read (Step "reading") or done with
// its records (Step "done").
type AdvisoryEvent struct {
	Ecosystem, From string
	Step            string
	Records         int
}

// Found is what Dir holds for one needed id after Advisories.
type Found struct {
	ID        string
	Records   []string // ids of the records that name it (itself or by alias, one step further)
	Withdrawn bool     // every one of them is withdrawn
}

// Missing reports whether no record names the id.
func (f Found) Missing() bool { return len(f.Records) == 0 }

// Source is one export read: where, when, what it was.
type Source struct {
	Ecosystem string    `json:"ecosystem"` // "*": a directory of records, every ecosystem
	From      string    `json:"from"`
	Fetched   time.Time `json:"fetched"`
	SHA256    string    `json:"sha256,omitempty"` // of an export; none for a directory of records
	Bytes     int64     `json:"bytes"`
	Records   int       `json:"records"` // records in the export
	Written   int       `json:"written"` // records written to Dir from it
	// ETag and LastModified are the server's validators of a downloaded export, sent back on
	// the next fetch (If-None-Match, If-Modified-Since): an unchanged export is not sent again.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// Searched are the ids the records were looked for in, so that a later fetch of the same
	// ids knows the records it wrote are all there are.
	Searched []string `json:"searched,omitempty"`
	// Unchanged: the server answered 304 Not Modified (nothing transferred; the records
	// written from it before stand).
	Unchanged bool `json:"-"`
}

// AdvisoryReport is Advisories' outcome.
type AdvisoryReport struct {
	Found    []Found  // one per need, in order
	Sources  []Source // exports read (none offline)
	Problems []error  // records of the exports or of Dir that could not be read (FILE:LINE)
	// Failed are the exports that could not be had (each wraps ErrSource); the others were
	// read all the same, and the manifest records them.
	Failed []error
	// Manifest is the directory's manifest as it was before (offline: as it is), and
	// Differences what Dir holds now against it (offline only): a record the manifest lists
	// that is gone, an id it never fetched, records it did not write.
	Manifest    *Manifest
	Differences []string
}

// Err is ErrSource, naming every export that could not be had, or nil.
func (rep *AdvisoryReport) Err() error {
	if len(rep.Failed) == 0 {
		return nil
	}
	return errors.Join(rep.Failed...) // each wraps ErrSource
}

// Advisories writes into opts.Dir the OSV records that name each needed id (the records
// advisory.DB.Related finds: the id's own, those aliasing it, and those aliasing those), each
// as DIR/ID.json verbatim from its source, and records in DIR's manifest the sources' origin,
// date and hash and what each id found. Every export is tried: one that cannot be had is in
// rep.Failed (rep.Err), and the others are read and recorded all the same. A downloaded export
// is asked for again with its validators (ETag, Last-Modified) when the ids were all looked for
// in it before: an unchanged one transfers nothing. Offline, it reads no export and compares what
// DIR holds with its manifest (rep.Differences). An id no record names is reported
// (Found.Missing), not an error; errors are for DIR and ctx.
func Advisories(ctx context.Context, needs []AdvisoryNeed, opts AdvisoryOptions) (*AdvisoryReport, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	if opts.From == "" {
		opts.From = DefaultSource
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("advisories directory: %w", err)
	}
	prev, err := ReadManifest(opts.Dir)
	if err != nil {
		return nil, err
	}
	rep := &AdvisoryReport{Manifest: prev}
	if !opts.Offline {
		srcs, err := sourcesOf(needs, opts)
		if err != nil {
			return nil, err
		}
		for _, eco := range srcs {
			src, problems, err := fetchExport(ctx, eco, needs, opts, prev)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, ErrSource) {
				rep.Failed = append(rep.Failed, err)
				continue
			}
			if err != nil {
				return nil, err
			}
			rep.Sources = append(rep.Sources, src)
			rep.Problems = append(rep.Problems, problems...)
		}
	}
	found, problems, err := check(opts.Dir, needs)
	if err != nil {
		return nil, err
	}
	rep.Found = found
	rep.Problems = append(rep.Problems, problems...)
	if opts.Offline {
		rep.Differences = prev.compare(found)
		return rep, nil
	}
	if len(rep.Sources) > 0 {
		if err := writeManifest(opts.Dir, opts.Now(), rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// sourcesOf lists the exports to read: an ecosystem each, or "*" once for a directory of
// records.
func sourcesOf(needs []AdvisoryNeed, opts AdvisoryOptions) ([]string, error) {
	if recordTree(opts.From) {
		return []string{"*"}, nil
	}
	ecos := opts.Ecosystems
	if len(ecos) == 0 {
		for _, n := range needs {
			for _, e := range n.Ecosystems {
				if !slices.Contains(ecos, e) {
					ecos = append(ecos, e)
				}
			}
		}
	}
	if len(ecos) == 0 && len(needs) > 0 {
		return nil, fmt.Errorf("%w: the cases name no ecosystem (vex.ecosystem): say which exports to read with --ecosystem", ErrSource)
	}
	return ecos, nil
}

// check reads Dir as advisory.Open does and finds each need there.
func check(dir string, needs []AdvisoryNeed) ([]Found, []error, error) {
	db, err := advisory.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	out := make([]Found, len(needs))
	for i, n := range needs {
		advs, err := db.Related(n.ID)
		if err != nil {
			return nil, nil, err
		}
		f := Found{ID: n.ID, Withdrawn: len(advs) > 0}
		for _, a := range advs {
			f.Records = append(f.Records, a.ID)
			f.Withdrawn = f.Withdrawn && a.IsWithdrawn()
		}
		out[i] = f
	}
	return out, db.Problems(), nil
}

// copyRecord writes a's bytes, as its source holds them (a zip's entry, or a file of a
// directory of records), to DIR/ID.json (through a temporary file and a rename), mode 0644.
func copyRecord(dir string, a *advisory.Advisory, zipPath string, entries map[string]*zip.File) error {
	if !recordName(a.ID) {
		return &suite.LineError{File: a.Source, Err: fmt.Errorf("record id %q cannot name a file: not written", a.ID)}
	}
	var r io.ReadCloser
	if entries == nil {
		f, err := os.Open(a.Source)
		if err != nil {
			return &suite.LineError{File: a.Source, Err: err}
		}
		r = f
	} else {
		entry := entries[strings.TrimPrefix(a.Source, zipPath+":")]
		if entry == nil {
			return &suite.LineError{File: a.Source, Err: errors.New("record not found again in its export")}
		}
		er, err := entry.Open()
		if err != nil {
			return &suite.LineError{File: a.Source, Err: err}
		}
		r = er
	}
	defer r.Close()
	tmp, err := os.CreateTemp(dir, ".record-*")
	if err != nil {
		return fmt.Errorf("advisories directory: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, io.LimitReader(r, advisory.MaxRecordSize)); err != nil {
		tmp.Close()
		return &suite.LineError{File: a.Source, Err: err}
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("advisories directory: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("advisories directory: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, a.ID+".json")); err != nil {
		return fmt.Errorf("advisories directory: %w", err)
	}
	return nil
}

// recordName reports whether id is usable as a file name: letters, digits, '-', '_', '.',
// not starting with '.'.
func recordName(id string) bool {
	if id == "" || id[0] == '.' || len(id) > 200 {
		return false
	}
	for _, c := range id {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
