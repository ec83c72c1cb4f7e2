package advisory

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ossf/osv-schema/bindings/go/osvschema"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/vulnbench/vulnbench/internal/lineerr"
)

// MaxRecordSize bounds one record's bytes; larger ones are problems.
const MaxRecordSize = 16 << 20

// DB is an index of OSV records. It is safe for concurrent use once Open returns.
type DB struct {
	path     string
	zips     []*zip.ReadCloser
	records  []location
	byID     map[string][]int32 // upper-cased id or alias -> records
	problems []error
}

// location is where one record lies: a file, or an entry of one of the zips.
type location struct {
	id        string
	file      string    // the file, or the zip's path
	entry     *zip.File // nil: a plain file
	withdrawn bool
}

func (l location) source() string {
	if l.entry != nil {
		return l.file + ":" + l.entry.Name
	}
	return l.file
}

// Open indexes the OSV records at path: a directory tree of .json files (and .zip exports in
// it), or one .zip export. Files that are not OSV records (the Go database's index/*.json) are
// skipped; malformed records are problems (*lineerr.Error), and the rest is still usable. Symlinks and .git
// directories are not followed.
func Open(path string) (*DB, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("advisories: %w", err)
	}
	db := &DB{path: path, byID: map[string][]int32{}}
	var jobs []job
	if !fi.IsDir() {
		if !strings.EqualFold(filepath.Ext(path), ".zip") {
			return nil, fmt.Errorf("advisories %s: not a directory or a .zip export", path)
		}
		if jobs, err = db.openZip(path); err != nil {
			db.Close()
			return nil, err
		}
	} else if jobs, err = db.walk(path); err != nil {
		db.Close()
		return nil, err
	}
	db.index(jobs)
	return db, nil
}

// job is one candidate record to index.
type job struct {
	file  string
	entry *zip.File // nil: a plain file
}

func (db *DB) walk(root string) ([]job, error) {
	var jobs []job
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			db.problems = append(db.problems, &lineerr.Error{File: p, Err: err})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != root && (d.Name() == ".git" || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() { // symlinks, devices
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".json":
			if isGoIndex(root, p) {
				return nil
			}
			jobs = append(jobs, job{file: p})
		case ".zip":
			zj, err := db.openZip(p)
			if err != nil {
				db.problems = append(db.problems, err)
				return nil
			}
			jobs = append(jobs, zj...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("advisories %s: %w", root, err)
	}
	return jobs, nil
}

// isGoIndex reports whether p is one of the Go vulnerability database's index files
// (index/db.json, index/modules.json, index/vulns.json), which are not OSV records.
func isGoIndex(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	dir, base := filepath.Split(filepath.ToSlash(rel))
	return (dir == "index/" || strings.HasSuffix(dir, "/index/")) &&
		(base == "db.json" || base == "modules.json" || base == "vulns.json" || strings.HasSuffix(base, ".json.gz"))
}

func (db *DB) openZip(p string) ([]job, error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return nil, &lineerr.Error{File: p, Err: fmt.Errorf("open zip: %w", err)}
	}
	db.zips = append(db.zips, zr)
	var jobs []job
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || !strings.EqualFold(pathExt(f.Name), ".json") {
			continue
		}
		jobs = append(jobs, job{file: p, entry: f})
	}
	return jobs, nil
}

func pathExt(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 && !strings.ContainsRune(name[i:], '/') {
		return name[i:]
	}
	return ""
}

type indexed struct {
	loc     location
	aliases []string
	err     error
}

// index reads the heads of every job with a few workers, then builds the maps in job order.
func (db *DB) index(jobs []job) {
	out := make([]indexed, len(jobs))
	workers := min(runtime.GOMAXPROCS(0), 4)
	var wg sync.WaitGroup
	next := make(chan int, 1024)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			for i := range next {
				out[i] = readHead(jobs[i], &buf)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	db.records = make([]location, 0, len(jobs))
	for _, x := range out {
		if x.err != nil {
			db.problems = append(db.problems, x.err)
			continue
		}
		if x.loc.id == "" { // not an OSV record: silently skipped only when it was not an object
			continue
		}
		k := int32(len(db.records))
		db.records = append(db.records, x.loc)
		keys := append([]string{x.loc.id}, x.aliases...)
		for i, key := range keys {
			key = strings.ToUpper(strings.TrimSpace(key))
			if key == "" || slices.Contains(keys[:i], key) {
				continue
			}
			keys[i] = key
			if l := db.byID[key]; len(l) == 0 || l[len(l)-1] != k {
				db.byID[key] = append(l, k)
			}
		}
	}
}

func readHead(j job, buf *bytes.Buffer) indexed {
	loc := location{file: j.file, entry: j.entry}
	b, err := readAll(loc, buf)
	if err != nil {
		return indexed{err: err}
	}
	h, err := check(loc.source(), b)
	if err != nil || h == nil {
		return indexed{err: err} // nil, nil: a JSON file that is not an object, not a record
	}
	loc.id, loc.withdrawn = h.ID, h.Withdrawn != ""
	return indexed{loc: loc, aliases: h.Aliases}
}

// readAll reads a record's bytes, bounded by MaxRecordSize. The returned slice is buf's and
// is valid until buf is used again.
func readAll(loc location, buf *bytes.Buffer) ([]byte, error) {
	var r io.ReadCloser
	var err error
	if loc.entry != nil {
		if loc.entry.UncompressedSize64 > MaxRecordSize {
			return nil, &lineerr.Error{File: loc.source(), Err: fmt.Errorf("record of %d bytes is over the %d byte limit", loc.entry.UncompressedSize64, MaxRecordSize)}
		}
		r, err = loc.entry.Open()
	} else {
		r, err = os.Open(loc.file)
	}
	if err != nil {
		return nil, &lineerr.Error{File: loc.source(), Err: err}
	}
	defer r.Close()
	buf.Reset()
	n, err := buf.ReadFrom(io.LimitReader(r, MaxRecordSize+1))
	if err != nil {
		return nil, &lineerr.Error{File: loc.source(), Err: err}
	}
	if n > MaxRecordSize {
		return nil, &lineerr.Error{File: loc.source(), Err: fmt.Errorf("record is over the %d byte limit", MaxRecordSize)}
	}
	return buf.Bytes(), nil
}

// jsonProblem places a JSON error on its line.
func jsonProblem(source string, b []byte, err error) *lineerr.Error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &lineerr.Error{File: source, Line: lineOf(b, se.Offset), Err: fmt.Errorf("invalid JSON: %v", err)}
	case errors.As(err, &te):
		return &lineerr.Error{File: source, Line: lineOf(b, te.Offset), Err: fmt.Errorf("field %q: expected %s, got JSON %s", te.Field, typeName(te.Type), te.Value)}
	}
	return &lineerr.Error{File: source, Err: err}
}

// typeName says what JSON a Go type is read from: "a list of strings", "an object", "a string".
func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(typeName(t.Elem()), "a "), "an ") + "s"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Interface:
		return "a value"
	}
	return "a number"
}

func lineOf(b []byte, off int64) int {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	return 1 + bytes.Count(b[:off], []byte("\n"))
}

// Problems are the records that could not be indexed, FILE:LINE: msg.
func (db *DB) Problems() []error { return db.problems }

// Len is the number of records indexed.
func (db *DB) Len() int { return len(db.records) }

// Path is what Open was given.
func (db *DB) Path() string { return db.path }

// Close closes the zip exports.
func (db *DB) Close() error {
	var errs []error
	for _, z := range db.zips {
		errs = append(errs, z.Close())
	}
	db.zips = nil
	return errors.Join(errs...)
}

// Withdrawn reports whether id names only withdrawn records (false when it names none).
func (db *DB) Withdrawn(id string) bool {
	ks := db.byID[strings.ToUpper(strings.TrimSpace(id))]
	for _, k := range ks {
		if !db.records[k].withdrawn {
			return false
		}
	}
	return len(ks) > 0
}

// Find returns every record whose id or alias is id (case-insensitive): the record with that
// id first, then those that alias it, by id. None is not an error. A record that the OSV
// schema bindings cannot read is an error naming its file.
func (db *DB) Find(id string) ([]*Advisory, error) {
	ks := db.keys(id)
	if len(ks) == 0 {
		return nil, nil
	}
	out := make([]*Advisory, 0, len(ks))
	var buf bytes.Buffer
	for _, k := range ks {
		a, err := db.read(db.records[k], &buf)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// keys are the records whose id or alias is id, in Find's order, from the index alone.
func (db *DB) keys(id string) []int32 {
	ks := slices.Clone(db.byID[strings.ToUpper(strings.TrimSpace(id))])
	slices.SortStableFunc(ks, func(a, b int32) int {
		ia, ib := db.records[a].id, db.records[b].id
		if ea, eb := strings.EqualFold(ia, id), strings.EqualFold(ib, id); ea != eb {
			if ea {
				return -1
			}
			return 1
		}
		return strings.Compare(ia, ib)
	})
	return ks
}

// Related returns the records that share an id or alias with id, following aliases one step
// further (a CVE finds its GHSA; the GHSA's GO- record aliases it too): Find's records and
// those found by their aliases, without repeats. Each record is read once.
func (db *DB) Related(id string) ([]*Advisory, error) {
	seen := map[int32]bool{}
	var out []*Advisory
	var buf bytes.Buffer
	add := func(id string) error {
		for _, k := range db.keys(id) {
			if seen[k] {
				continue
			}
			seen[k] = true
			a, err := db.read(db.records[k], &buf)
			if err != nil {
				return err
			}
			out = append(out, a)
		}
		return nil
	}
	if err := add(id); err != nil {
		return nil, err
	}
	first := out // Find's records: add appends to out
	for _, a := range first {
		for _, al := range append([]string{a.ID}, a.Aliases...) {
			if err := add(al); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func (db *DB) read(loc location, buf *bytes.Buffer) (*Advisory, error) {
	b, err := readAll(loc, buf)
	if err != nil {
		return nil, err
	}
	v := &osvschema.Vulnerability{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, v); err != nil {
		return nil, &lineerr.Error{File: loc.source(), Err: fmt.Errorf("not a valid OSV record: %v", err)}
	}
	return fromRecord(v, loc.source()), nil
}

// Each decodes every record in the index's order (the order Open found them) and calls fn with
// it; fn's error stops the walk and is returned. A record the OSV schema bindings cannot read
// is a problem (FILE: msg) and is skipped.
func (db *DB) Each(fn func(*Advisory) error) (problems []error, err error) {
	var buf bytes.Buffer
	for _, loc := range db.records {
		a, err := db.read(loc, &buf)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if err := fn(a); err != nil {
			return problems, err
		}
	}
	return problems, nil
}

// Unreadable says how many records could not be indexed and names the first (path and reason),
// for a message about a record that was not found: it may be among them. "" when every record
// was read.
func (db *DB) Unreadable() string {
	if len(db.problems) == 0 {
		return ""
	}
	return fmt.Sprintf("%d advisory %s could not be read or %s not valid OSV, the record may be among them (first: %v)",
		len(db.problems), map[bool]string{true: "file", false: "files"}[len(db.problems) == 1], map[bool]string{true: "is", false: "are"}[len(db.problems) == 1], db.problems[0])
}

// DescribeKey is the key of a subject's Describe (a run's manifest, subject_describe) that holds
// Problem: the report of a run notes it.
const DescribeKey = "advisories_unreadable"

// Problem says how many records could not be indexed and names the first, for a run's notes:
// "3 advisory files could not be read or are not valid OSV (first: PATH: REASON)"; "" when every record was read (or
// db is nil).
func (db *DB) Problem() string {
	if db == nil || len(db.problems) == 0 {
		return ""
	}
	return fmt.Sprintf("%d advisory %s could not be read or %s not valid OSV (first: %v)",
		len(db.problems), map[bool]string{true: "file", false: "files"}[len(db.problems) == 1], map[bool]string{true: "is", false: "are"}[len(db.problems) == 1], db.problems[0])
}

// Describe sets DescribeKey in d to Problem when some record could not be read, and returns d.
func (db *DB) Describe(d map[string]any) map[string]any {
	if p := db.Problem(); p != "" {
		d[DescribeKey] = p
	}
	return d
}
