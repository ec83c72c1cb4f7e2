package fetch

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/advisory"
)

// recordTree reports whether from is a directory of OSV records rather than of exports: a
// directory with no ECOSYSTEM/all.zip in it.
func recordTree(from string) bool {
	if isURL(from) {
		return false
	}
	dir := strings.TrimPrefix(from, "file://")
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	zips, _ := filepath.Glob(filepath.Join(dir, "*", "all.zip"))
	return len(zips) == 0
}

func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https")
}

// fetchExport reads one source (an ecosystem's export downloaded or in a mirror directory, or
// a directory of records: eco "*") and writes the records the needs want. prev is the
// directory's manifest, whose validators make an unchanged download transfer nothing.
func fetchExport(ctx context.Context, eco string, needs []AdvisoryNeed, opts AdvisoryOptions, prev *Manifest) (Source, []error, error) {
	src := Source{Ecosystem: eco, From: opts.From, Fetched: opts.Now().UTC()}
	for _, n := range needs {
		src.Searched = append(src.Searched, n.ID)
	}
	slices.Sort(src.Searched)
	if opts.Progress != nil {
		opts.Progress(AdvisoryEvent{Ecosystem: eco, From: opts.From, Step: "reading"})
	}
	path, cleanup, err := export(ctx, eco, opts, &src, prev)
	if err != nil {
		return src, nil, err
	}
	defer cleanup()
	if src.Unchanged {
		if opts.Progress != nil {
			opts.Progress(AdvisoryEvent{Ecosystem: eco, From: src.From, Step: "unchanged", Records: src.Written})
		}
		return src, nil, nil
	}
	db, err := advisory.Open(path)
	if err != nil {
		return src, nil, fmt.Errorf("%w: %s: %v", ErrSource, src.From, err)
	}
	defer db.Close()
	src.Records = db.Len()
	var entries map[string]*zip.File
	if eco != "*" {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return src, nil, fmt.Errorf("%w: %s: %v", ErrSource, src.From, err)
		}
		defer zr.Close()
		entries = make(map[string]*zip.File, len(zr.File))
		for _, f := range zr.File {
			entries[f.Name] = f
		}
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

// export makes eco's export available as a local file or directory: a directory of records as
// it is, a mirror's own export, or a download into a temporary file in Dir (removed by
// cleanup). It fills src's From, SHA256, Bytes and validators; src.Unchanged when the server
// said the export it sent before has not changed.
func export(ctx context.Context, eco string, opts AdvisoryOptions, src *Source, prev *Manifest) (path string, cleanup func(), err error) {
	cleanup = func() {}
	from := opts.From
	if eco == "*" {
		src.From = strings.TrimPrefix(from, "file://")
		return src.From, cleanup, nil
	}
	if strings.ContainsAny(eco, `/\`) || eco == ".." || eco == "." {
		return "", cleanup, fmt.Errorf("%w: ecosystem %q is not a plain name", ErrSource, eco)
	}
	if isURL(from) {
		src.From = strings.TrimRight(from, "/") + "/" + url.PathEscape(eco) + "/all.zip"
		f, err := os.CreateTemp(opts.Dir, ".download-*.zip")
		if err != nil {
			return "", cleanup, fmt.Errorf("advisories directory: %w", err)
		}
		cleanup = func() { f.Close(); os.Remove(f.Name()) }
		if err := download(ctx, opts.Client, src, prev.reusable(*src), f); err != nil {
			cleanup()
			return "", func() {}, err
		}
		return f.Name(), cleanup, nil
	}
	from = strings.TrimPrefix(from, "file://")
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

// download GETs src.From into f; with last (the same export fetched before for the same ids),
// conditionally: a 304 leaves f empty, src as last was, Unchanged.
func download(ctx context.Context, client *http.Client, src *Source, last *Source, f *os.File) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.From, nil)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSource, err)
	}
	if last != nil {
		if last.ETag != "" {
			req.Header.Set("If-None-Match", last.ETag)
		}
		if last.LastModified != "" {
			req.Header.Set("If-Modified-Since", last.LastModified)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: %v", ErrSource, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotModified && last != nil {
		fetched, searched := src.Fetched, src.Searched
		*src = *last
		src.Fetched, src.Searched, src.Unchanged = fetched, searched, true
		return nil
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: GET %s: %s", ErrSource, src.From, resp.Status)
	}
	src.ETag, src.LastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
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
