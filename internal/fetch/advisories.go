package fetch

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
	// From is where the exports are: a base URL (http, https) or a directory, each holding
	// ECOSYSTEM/all.zip; "": DefaultSource.
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
	Ecosystem string    `json:"ecosystem"`
	From      string    `json:"from"`
	Fetched   time.Time `json:"fetched"`
	SHA256    string    `json:"sha256"`
	Bytes     int64     `json:"bytes"`
	Records   int       `json:"records"` // records in the export
	Written   int       `json:"written"` // records written to Dir from it
}

// AdvisoryReport is Advisories' outcome.
type AdvisoryReport struct {
	Found    []Found  // one per need, in order
	Sources  []Source // exports read (none offline)
	Problems []error  // records of the exports or of Dir that could not be read (FILE:LINE)
}

// Advisories writes into opts.Dir the OSV records that name each needed id (the records
// advisory.DB.Related finds: the id's own, those aliasing it, and those aliasing those), each
// as DIR/ID.json verbatim from its export, and records in DIR's manifest the exports' source,
// date and hash and what each id found. Offline, it reads no export and reports what DIR
// already holds. An id no record names is reported (Found.Missing), not an error; errors are
// for an export that cannot be had (ErrSource), DIR, and ctx.
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
	rep := &AdvisoryReport{}
	if !opts.Offline {
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
		for _, eco := range ecos {
			src, problems, err := fetchExport(ctx, eco, needs, opts)
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
	if !opts.Offline {
		if err := writeManifest(opts.Dir, opts.Now(), rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
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

// fetchExport reads one ecosystem's export (downloaded to a temporary file in Dir, or read in
// place from a directory) and writes the records the needs want.
func fetchExport(ctx context.Context, eco string, needs []AdvisoryNeed, opts AdvisoryOptions) (Source, []error, error) {
	src := Source{Ecosystem: eco, Fetched: opts.Now().UTC()}
	if opts.Progress != nil {
		opts.Progress(AdvisoryEvent{Ecosystem: eco, From: opts.From, Step: "reading"})
	}
	path, cleanup, err := export(ctx, eco, opts, &src)
	if err != nil {
		return src, nil, err
	}
	defer cleanup()
	db, err := advisory.Open(path)
	if err != nil {
		return src, nil, fmt.Errorf("%w: %s: %v", ErrSource, src.From, err)
	}
	defer db.Close()
	src.Records = db.Len()
	zr, err := zip.OpenReader(path)
	if err != nil {
		return src, nil, fmt.Errorf("%w: %s: %v", ErrSource, src.From, err)
	}
	defer zr.Close()
	entries := make(map[string]*zip.File, len(zr.File))
	for _, f := range zr.File {
		entries[f.Name] = f
	}
	problems := db.Problems()
	written := map[string]bool{}
	for _, n := range needs {
		advs, err := db.Related(n.ID)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		for _, a := range advs {
			if written[a.ID] {
				continue
			}
			if err := copyRecord(opts.Dir, a, path, entries); err != nil {
				problems = append(problems, err)
				continue
			}
			written[a.ID] = true
		}
	}
	src.Written = len(written)
	if opts.Progress != nil {
		opts.Progress(AdvisoryEvent{Ecosystem: eco, From: src.From, Step: "done", Records: src.Written})
	}
	return src, problems, nil
}

// export makes eco's export available as a local file: the mirror's own, or a download into a
// temporary file in Dir (removed by cleanup). It fills src's From, SHA256 and Bytes.
func export(ctx context.Context, eco string, opts AdvisoryOptions, src *Source) (path string, cleanup func(), err error) {
	cleanup = func() {}
	from := opts.From
	if u, err := url.Parse(from); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		src.From = strings.TrimRight(from, "/") + "/" + url.PathEscape(eco) + "/all.zip"
		f, err := os.CreateTemp(opts.Dir, ".download-*.zip")
		if err != nil {
			return "", cleanup, fmt.Errorf("advisories directory: %w", err)
		}
		cleanup = func() { f.Close(); os.Remove(f.Name()) }
		if err := download(ctx, opts.Client, src, f); err != nil {
			cleanup()
			return "", func() {}, err
		}
		return f.Name(), cleanup, nil
	}
	from = strings.TrimPrefix(from, "file://")
	if strings.ContainsAny(eco, `/\`) || eco == ".." || eco == "." {
		return "", cleanup, fmt.Errorf("%w: ecosystem %q is not a plain name", ErrSource, eco)
	}
	src.From = filepath.Join(from, eco, "all.zip")
	f, err := os.Open(src.From)
	if err != nil {
		return "", cleanup, fmt.Errorf("%w: %v", ErrSource, err)
	}
	defer f.Close()
	h := sha256.New()
	if src.Bytes, err = io.Copy(h, f); err != nil {
		return "", cleanup, fmt.Errorf("%w: %s: %v", ErrSource, src.From, err)
	}
	src.SHA256 = hex.EncodeToString(h.Sum(nil))
	return src.From, cleanup, nil
}

func download(ctx context.Context, client *http.Client, src *Source, f *os.File) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.From, nil)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSource, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: %v", ErrSource, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: GET %s: %s", ErrSource, src.From, resp.Status)
	}
	h := sha256.New()
	if src.Bytes, err = io.Copy(io.MultiWriter(f, h), resp.Body); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: GET %s: %v", ErrSource, src.From, err)
	}
	src.SHA256 = hex.EncodeToString(h.Sum(nil))
	if err := f.Sync(); err != nil {
		return fmt.Errorf("advisories directory: %w", err)
	}
	return nil
}

// copyRecord writes a's bytes, as its export holds them, to DIR/ID.json (through a temporary
// file and a rename).
func copyRecord(dir string, a *advisory.Advisory, zipPath string, entries map[string]*zip.File) error {
	if !recordName(a.ID) {
		return &suite.LineError{File: a.Source, Err: fmt.Errorf("record id %q cannot name a file: not written", a.ID)}
	}
	entry := entries[strings.TrimPrefix(a.Source, zipPath+":")]
	if entry == nil {
		return &suite.LineError{File: a.Source, Err: errors.New("record not found again in its export")}
	}
	r, err := entry.Open()
	if err != nil {
		return &suite.LineError{File: a.Source, Err: err}
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
