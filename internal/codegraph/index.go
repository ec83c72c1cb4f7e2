// Package codegraph indexes repositories with tree-sitter: every function definition and every
// call site in C, C++, Java, Python, Go and JavaScript files, so that the definition, callers and
// callees of a function are answered from memory. It serves JitVul's dependency-augmented prompts
// and ReAct tools (get_definition, get_callers, get_callees) and VEX-Bench's reachability
// questions, in place of Universal Ctags and GNU cflow.
//
// Open indexes a repository in parallel (or loads the index persisted for the same snapshot:
// the key is a hash of every indexed file's content) and answers Definition, Callers, Callees
// and TopK. Calls are matched by name, as cflow does; calls through function pointers, variables
// and computed expressions are kept as Unresolved and never guessed. All cgo of vulnbench lives
// in this package.
package codegraph

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options control indexing. The zero value is usable: see the defaults on each field.
type Options struct {
	// CacheDir holds persisted indexes, one directory per snapshot hash. Default:
	// os.UserCacheDir()/vulnbench/codegraph.
	CacheDir string
	// NoCache neither reads nor writes persisted indexes.
	NoCache bool
	// MaxFileSize skips larger files as oversized. Default 2 MiB; negative means no limit.
	MaxFileSize int64
	// ParseTimeout abandons a file whose parse takes longer. Default 30 s; negative means none.
	ParseTimeout time.Duration
	// MaxNodes abandons a file whose syntax tree has more named nodes. Default 20 million.
	MaxNodes int
	// Workers is how many files are parsed at once. Default: GOMAXPROCS.
	Workers int
}

const (
	defaultMaxFileSize  = 2 << 20
	defaultParseTimeout = 30 * time.Second
	defaultMaxNodes     = 20_000_000
)

func (o Options) withDefaults() Options {
	if o.MaxFileSize == 0 {
		o.MaxFileSize = defaultMaxFileSize
	}
	if o.ParseTimeout == 0 {
		o.ParseTimeout = defaultParseTimeout
	}
	if o.ParseTimeout < 0 {
		o.ParseTimeout = 0
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = defaultMaxNodes
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// fingerprint names the options that change what an index holds; it is part of the cache file name.
func (o Options) fingerprint() string {
	h := sha256.Sum256(fmt.Appendf(nil, "format=%d extract=%d max=%d nodes=%d", formatVersion, extractVersion, o.MaxFileSize, o.MaxNodes))
	return hex.EncodeToString(h[:6])
}

// extractVersion changes whenever the extractors change what they record.
const extractVersion = 7

// DefaultCacheDir is where indexes persist unless Options.CacheDir says otherwise.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory (set --cache): %w", err)
	}
	return filepath.Join(d, "vulnbench", "codegraph"), nil
}

// File is one indexed file.
type File struct {
	Path string `json:"path"`
	Lang Lang   `json:"lang"`
	Size int64  `json:"size"`
	// Partial: a definition the parser could not close was cut where its braces close and the
	// definitions after it were parsed again; that definition's calls are as the parser read them.
	Partial bool `json:"partial,omitempty"`
}

// Skipped is a file or directory left out, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Stats summarise an index.
type Stats struct {
	Files        int     `json:"files"`     // files parsed
	Functions    int     `json:"functions"` // definitions, macros excluded
	Macros       int     `json:"macros"`
	CallSites    int     `json:"call_sites"`
	Unresolved   int     `json:"unresolved"` // call sites through pointers or expressions
	References   int     `json:"references"` // functions used as values
	Skipped      int     `json:"skipped"`
	SyntaxErrors int     `json:"files_with_syntax_errors"`
	Partial      int     `json:"files_partly_parsed"` // files with a definition the parser could not close (File.Partial)
	Bytes        int64   `json:"bytes"`
	Seconds      float64 `json:"seconds"` // wall time of Open: build or load
	Loaded       bool    `json:"loaded"`  // read from the cache rather than built
}

// Index is a repository's code graph. It is safe for concurrent queries.
type Index struct {
	Root    string    // the repository directory
	Hash    string    // snapshot hash: sha256 over the sorted (path, size, content sha256) of the files considered
	Files   []File    // sorted by path
	Funcs   []Func    // by file, then position
	Calls   []Call    // by file, then line and column; Caller indexes Funcs
	Skipped []Skipped // sorted by path
	Stats   Stats
	// CacheFile is where the index was loaded from or saved to ("" with NoCache).
	CacheFile string
	// CacheErr is set when the index could not be saved; the index itself is complete.
	CacheErr error

	fileLang map[string]Lang
	byName   map[string][]int32 // Name and QualName to Funcs
	byCallee map[string][]int32 // Callee to Calls (direct and method calls)
	callOff  []int32            // calls of Funcs[i]: callIdx[callOff[i]:callOff[i+1]]
	callIdx  []int32
}

// candidate is a file the walk found and the rules did not exclude by name or size.
type candidate struct {
	path  string // slash-separated, relative
	lang  Lang
	size  int64
	mtime int64
	ino   uint64
	hash  [32]byte
	data  []byte // the content, when hashing read it and the memory budget allowed keeping it
}

// keepBudget is how many bytes of file contents hashing keeps for parsing, so that a first
// index reads each file once.
const keepBudget = 512 << 20

// dirRule says whether the walk enters a directory: version-control and tool caches are skipped
// silently, vendored code is skipped and reported.
func dirRule(name string) (skip bool, reason string) {
	switch name {
	case ".git", ".hg", ".svn", ".bzr", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache":
		return true, ""
	case "vendor", "node_modules", "bower_components", "third_party", "third-party", "thirdparty", "3rdparty",
		"site-packages", ".venv", "venv", "Pods":
		return true, "vendored directory"
	}
	return false, ""
}

// Open returns the code graph of the repository at root: loaded from the cache when this
// snapshot (same files, same contents) was indexed before with the same options, else built by
// parsing every file in parallel and saved.
func Open(ctx context.Context, root string, opts Options) (*Index, error) {
	t0 := time.Now()
	opts = opts.withDefaults()
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", root, err)
	}
	if st, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("repository: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("repository %s is not a directory", root)
	}
	cands, skipped, err := walk(ctx, abs, opts)
	if err != nil {
		return nil, err
	}
	cacheDir := opts.CacheDir
	if cacheDir == "" && !opts.NoCache {
		if cacheDir, err = DefaultCacheDir(); err != nil {
			return nil, err
		}
	}
	var sc *statCache
	if !opts.NoCache {
		sc = loadStatCache(cacheDir, abs)
	}
	var total int64
	for i := range cands {
		total += cands[i].size + 1
	}
	arena := newContentArena(min(total, keepBudget+int64(len(cands))))
	defer arena.release() // the index holds copies of what it extracted, never the contents
	if err := hashFiles(ctx, abs, cands, sc, arena, opts.Workers); err != nil {
		return nil, err
	}
	hash := snapshotHash(cands)
	var cacheFile string
	var saveErr error
	if !opts.NoCache {
		if err := sc.save(cands); err != nil {
			saveErr = err
		}
		cacheFile = filepath.Join(cacheDir, hash, "index-"+opts.fingerprint()+".bin")
		if ix, err := readIndexFile(cacheFile); err == nil && ix.Hash == hash {
			ix.Root = abs
			ix.CacheFile = cacheFile
			ix.Stats.Loaded = true
			ix.Stats.Seconds = time.Since(t0).Seconds()
			return ix, nil
		}
	}
	ix, err := build(ctx, abs, cands, skipped, opts)
	if err != nil {
		return nil, err
	}
	ix.Hash = hash
	ix.Stats.Seconds = time.Since(t0).Seconds()
	if !opts.NoCache {
		ix.CacheFile = cacheFile
		if err := writeIndexFile(cacheFile, ix); err != nil {
			ix.CacheErr = err
		} else if saveErr != nil {
			ix.CacheErr = saveErr
		}
	}
	return ix, nil
}

// walk lists the candidate files under root and what the name and size rules skip. Directories
// are read by several goroutines (a tree of 20,000 files costs a few hundred system calls a
// directory otherwise done one after the other); the result is sorted by path.
func walk(ctx context.Context, root string, opts Options) ([]candidate, []Skipped, error) {
	if _, err := os.ReadDir(root); err != nil {
		return nil, nil, fmt.Errorf("walk %s: %w", root, err)
	}
	type dirResult struct {
		cands    []candidate
		skipped  []Skipped
		subdirs  []string
		nC, nCPP int
	}
	// readDir lists one directory (rel is "" for the root).
	readDir := func(rel string) dirResult {
		var r dirResult
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			r.skipped = append(r.skipped, Skipped{rel + "/", "unreadable: " + errText(err)})
		}
		for _, d := range entries {
			name := d.Name()
			p := name
			if rel != "" {
				p = rel + "/" + name
			}
			if d.IsDir() {
				if skip, reason := dirRule(name); skip {
					if reason != "" {
						r.skipped = append(r.skipped, Skipped{p + "/", reason})
					}
				} else {
					r.subdirs = append(r.subdirs, p)
				}
				continue
			}
			l := LangOf(name, false)
			if l == NoLang {
				continue
			}
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				r.skipped = append(r.skipped, Skipped{p, "symbolic link"})
				continue
			case !d.Type().IsRegular():
				continue
			case generatedName(p):
				r.skipped = append(r.skipped, Skipped{p, "generated file (by its name)"})
				continue
			}
			info, err := d.Info()
			if err != nil {
				r.skipped = append(r.skipped, Skipped{p, "unreadable: " + errText(err)})
				continue
			}
			if opts.MaxFileSize > 0 && info.Size() > opts.MaxFileSize {
				r.skipped = append(r.skipped, Skipped{p, fmt.Sprintf("oversized (%d bytes, limit %d)", info.Size(), opts.MaxFileSize)})
				continue
			}
			switch strings.ToLower(path.Ext(name)) {
			case ".c":
				r.nC++
			case ".cc", ".cpp", ".cxx", ".c++":
				r.nCPP++
			}
			r.cands = append(r.cands, candidate{path: p, lang: l, size: info.Size(), mtime: info.ModTime().UnixNano(), ino: inode(info)})
		}
		return r
	}

	var (
		mu       sync.Mutex
		cands    []candidate
		skipped  []Skipped
		nC, nCPP int
		queue    = []string{""}
		pending  = 1 // directories queued or being read
		cond     = sync.NewCond(&mu)
		wg       sync.WaitGroup
	)
	for range max(4, opts.Workers*2) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			for {
				for len(queue) == 0 && pending > 0 {
					cond.Wait()
				}
				if pending == 0 {
					cond.Broadcast()
					return
				}
				dir := queue[len(queue)-1]
				queue = queue[:len(queue)-1]
				mu.Unlock()
				var r dirResult
				if ctx.Err() == nil {
					r = readDir(dir)
				}
				mu.Lock()
				cands = append(cands, r.cands...)
				skipped = append(skipped, r.skipped...)
				nC, nCPP = nC+r.nC, nCPP+r.nCPP
				queue = append(queue, r.subdirs...)
				pending += len(r.subdirs) - 1
				cond.Broadcast()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if nCPP > nC { // headers of a mostly C++ repository are C++
		for i := range cands {
			cands[i].lang = LangOf(cands[i].path, true)
		}
	}
	slices.SortFunc(cands, func(a, b candidate) int { return strings.Compare(a.path, b.path) })
	slices.SortFunc(skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	return cands, skipped, nil
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// snapshotHash is sha256 over the sorted (path, size, content hash) of the candidates.
func snapshotHash(cands []candidate) string {
	h := sha256.New()
	var line []byte
	for _, c := range cands {
		line = fmt.Appendf(line[:0], "%s\x00%d\x00%x\n", c.path, c.size, c.hash)
		h.Write(line)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hashFiles fills in the content hashes, in parallel, reusing the stat cache's hash of a file
// whose size, modification time and inode did not change.
func hashFiles(ctx context.Context, root string, cands []candidate, sc *statCache, arena *contentArena, workers int) error {
	var next, kept atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 256<<10)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(cands) || ctx.Err() != nil {
					return
				}
				c := &cands[i]
				if h, ok := sc.lookup(c); ok {
					c.hash = h
					continue
				}
				name := filepath.Join(root, filepath.FromSlash(c.path))
				if kept.Add(c.size) <= keepBudget {
					data, err := readFile(name, c.size, arena)
					if err != nil {
						once.Do(func() { firstErr = fmt.Errorf("hash %s: %w", c.path, err) })
						return
					}
					c.hash, c.data = sha256.Sum256(data), data
					continue
				}
				h, err := hashFile(name, buf)
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("hash %s: %w", c.path, err) })
					return
				}
				c.hash = h
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

func hashFile(name string, buf []byte) ([32]byte, error) {
	var sum [32]byte
	f, err := os.Open(name)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, buf); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// build parses the candidates in parallel, each distinct (content, language) once, and merges
// the results in path order.
func build(ctx context.Context, root string, cands []candidate, skipped []Skipped, opts Options) (*Index, error) {
	gs, err := newGrammars()
	if err != nil {
		return nil, err
	}
	// One job per distinct content; the largest first, so that no worker is left with a big file at the end.
	type key struct {
		hash [32]byte
		lang Lang
	}
	jobOf := make([]int, len(cands))
	first := map[key]int{}
	var jobs []int // candidate index of each job
	for i, c := range cands {
		k := key{c.hash, c.lang}
		j, ok := first[k]
		if !ok {
			j = len(jobs)
			first[k] = j
			jobs = append(jobs, i)
		}
		jobOf[i] = j
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cands[jobs[b]].size, cands[jobs[a]].size) })

	results := make([]*FileResult, len(jobs))
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fi, err := newFileIndexer(gs, opts, false)
			if err != nil {
				once.Do(func() { firstErr = err })
				return
			}
			defer fi.Close()
			for {
				n := int(next.Add(1) - 1)
				if n >= len(order) || ctx.Err() != nil {
					return
				}
				j := order[n]
				c := &cands[jobs[j]]
				src := c.data
				if src == nil {
					var err error
					if src, err = readFile(filepath.Join(root, filepath.FromSlash(c.path)), c.size, nil); err != nil {
						results[j] = &FileResult{Path: c.path, Lang: c.lang, Skip: "unreadable: " + errText(err)}
						continue
					}
				}
				c.data = nil
				res, err := indexSafely(fi, c.lang, c.path, src)
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("index %s: %w", c.path, err) })
					return
				}
				// In source order: the extractors emit outer calls first.
				slices.SortStableFunc(res.Calls, func(a, b Call) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col)) })
				results[j] = res
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// References are kept when they name a function the repository defines in that language.
	type langName struct {
		lang Lang
		name string
	}
	funcNames := map[langName]bool{}
	for _, res := range results {
		for _, f := range res.Funcs {
			if f.Kind != Macro {
				funcNames[langName{f.Lang, f.Name}] = true
			}
		}
	}
	ix := &Index{Root: root}
	nf, nc := 0, 0
	for i := range cands {
		nf += len(results[jobOf[i]].Funcs)
		nc += len(results[jobOf[i]].Calls)
	}
	ix.Funcs = make([]Func, 0, nf)
	ix.Calls = make([]Call, 0, nc)
	for i, c := range cands {
		res := results[jobOf[i]]
		if res.Skip != "" {
			skipped = append(skipped, Skipped{c.path, res.Skip})
			continue
		}
		ix.Files = append(ix.Files, File{Path: c.path, Lang: c.lang, Size: c.size, Partial: res.Partial})
		ix.Stats.Bytes += c.size
		if res.SyntaxErrors > 0 {
			ix.Stats.SyntaxErrors++
		}
		if res.Partial {
			ix.Stats.Partial++
		}
		base := len(ix.Funcs)
		same := res.Path == c.path
		for _, f := range res.Funcs {
			if !same {
				f.File = c.path
			}
			ix.Funcs = append(ix.Funcs, f)
		}
		for _, call := range res.Calls {
			if call.Kind == Reference && !funcNames[langName{res.Lang, call.Callee}] {
				continue
			}
			if !same {
				call.File = c.path
			}
			if call.Caller >= 0 {
				call.Caller += base
			}
			ix.Calls = append(ix.Calls, call)
		}
	}
	slices.SortFunc(skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	ix.Skipped = skipped
	ix.finish()
	return ix, nil
}

// indexSafely indexes one file; a panic in the extractors skips that file rather than ending
// the whole run.
func indexSafely(fi *FileIndexer, l Lang, path string, src []byte) (res *FileResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = &FileResult{Path: path, Lang: l, Skip: fmt.Sprintf("indexer fault (please report): %v", r)}, nil
		}
	}()
	return fi.IndexFileAs(l, path, src)
}

// finish computes the statistics and the lookup tables.
func (ix *Index) finish() {
	st := &ix.Stats
	st.Files = len(ix.Files)
	st.Skipped = len(ix.Skipped)
	st.Functions, st.Macros, st.Unresolved, st.References = 0, 0, 0, 0
	for i := range ix.Funcs {
		if ix.Funcs[i].Kind == Macro {
			st.Macros++
		} else {
			st.Functions++
		}
	}
	ix.fileLang = make(map[string]Lang, len(ix.Files))
	for _, f := range ix.Files {
		ix.fileLang[f.Path] = f.Lang
	}
	ix.byName = make(map[string][]int32, len(ix.Funcs))
	for i := range ix.Funcs {
		f := &ix.Funcs[i]
		ix.byName[f.Name] = append(ix.byName[f.Name], int32(i))
		if f.QualName != f.Name && f.QualName != "" {
			ix.byName[f.QualName] = append(ix.byName[f.QualName], int32(i))
		}
	}
	ix.byCallee = make(map[string][]int32, len(ix.byName))
	counts := make([]int32, len(ix.Funcs)+1)
	for i := range ix.Calls {
		c := &ix.Calls[i]
		switch c.Kind {
		case Reference:
			st.References++
		case Unresolved:
			st.Unresolved++
		}
		if c.Kind != Unresolved {
			ix.byCallee[c.Callee] = append(ix.byCallee[c.Callee], int32(i))
		}
		if c.Caller >= 0 && c.Caller < len(ix.Funcs) {
			counts[c.Caller+1]++
		}
	}
	st.CallSites = len(ix.Calls) - st.References
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	ix.callOff = counts
	ix.callIdx = make([]int32, counts[len(counts)-1])
	fill := slices.Clone(counts[:len(counts)-1])
	for i := range ix.Calls {
		if c := ix.Calls[i].Caller; c >= 0 && c < len(ix.Funcs) {
			ix.callIdx[fill[c]] = int32(i)
			fill[c]++
		}
	}
}
