// Package codegraph indexes repositories with tree-sitter: every function definition and every
// call site in C, C++, Java, Python, Go and JavaScript files, so that the definition, callers and
// callees of a function are answered from memory. It serves JitVul's dependency-augmented prompts
// and ReAct tools (get_definition, get_callers, get_callees) and VEX-Bench's reachability
// questions, in place of Universal Ctags and GNU cflow.
//
// Open indexes a repository in parallel (or loads the index persisted for the same snapshot:
// the key is a hash of every indexed file's content) and answers Definition, Callers, Callees
// and TopK. Calls are matched by name, as cflow does; calls through function pointers, variables
// and computed expressions are kept as Unresolved and never guessed.
//
// This package puts the jobs together; each lives in its own package: listing and hashing the
// files (walk), the C pre-pass (prep), parsing and extraction (extract, the only cgo of
// vulnbench), the index in memory and its queries (graph), persistence (store).
package codegraph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/codegraph/extract"
	"github.com/vulnbench/vulnbench/internal/codegraph/lang"
	"github.com/vulnbench/vulnbench/internal/codegraph/store"
	"github.com/vulnbench/vulnbench/internal/codegraph/walk"
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
	// KeepParsed saves, next to a built index, every file content's parse results, so that the
	// index can serve as the Base of a sibling snapshot's. It costs a second file about the
	// size of the index. A saved index without them is built again rather than loaded.
	KeepParsed bool
	// Base is the index of another snapshot of the same repository (a sibling commit), opened
	// with the same options and KeepParsed. A file whose content (and language) Base parsed is
	// not parsed again: its definitions and call sites are taken from Base's saved parse
	// results. A file at a path whose content in Base's directory (Base.Root, which must not
	// have changed since) Base parsed is parsed only where it changed (extract.IndexEdited).
	// What depends on the whole snapshot (which references name a function of the repository,
	// the files and statistics) is computed afresh, so the index equals a cold one. Without
	// Base's parse results (NoCache, or Base built without KeepParsed) every file is parsed;
	// Stats.Reused, PartParsed and ParsedBytes say what was not.
	Base *Index
}

const defaultMaxFileSize = 2 << 20

func (o Options) withDefaults() Options {
	if o.MaxFileSize == 0 {
		o.MaxFileSize = defaultMaxFileSize
	}
	o.MaxNodes = o.limits().MaxNodes // part of the fingerprint; ParseTimeout is left as given (negative: none)
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

func (o Options) limits() extract.Limits {
	return extract.Limits{ParseTimeout: o.ParseTimeout, MaxNodes: o.MaxNodes}.WithDefaults()
}

// fingerprint names the options that change what an index holds; it is part of the cache file name.
func (o Options) fingerprint() string {
	h := sha256.Sum256(fmt.Appendf(nil, "format=%d extract=%d max=%d nodes=%d", store.FormatVersion, extract.Version, o.MaxFileSize, o.MaxNodes))
	return hex.EncodeToString(h[:6])
}

// parsedFile is where the parse results of the index saved as indexFile are kept.
func parsedFile(indexFile string) string {
	return filepath.Join(filepath.Dir(indexFile), "parsed-"+strings.TrimPrefix(filepath.Base(indexFile), "index-"))
}

// DefaultCacheDir is where indexes persist unless Options.CacheDir says otherwise.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory (set --cache): %w", err)
	}
	return filepath.Join(d, "vulnbench", "codegraph"), nil
}

// Open returns the code graph of the repository at root: loaded from the cache when this
// snapshot (same files, same contents) was indexed before with the same options, else built by
// parsing every file (but those opts.Base parsed) in parallel, and saved.
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
	files, wskipped, err := walk.List(ctx, abs, walk.Options{
		Match:       func(name string) bool { return lang.Of(name, false) != lang.NoLang },
		MaxFileSize: opts.MaxFileSize,
		Workers:     opts.Workers,
	})
	if err != nil {
		return nil, err
	}
	cacheDir := opts.CacheDir
	if cacheDir == "" && !opts.NoCache {
		if cacheDir, err = DefaultCacheDir(); err != nil {
			return nil, err
		}
	}
	var sc *walk.StatCache
	if !opts.NoCache {
		sc = walk.LoadStatCache(cacheDir, abs)
	}
	var total int64
	for i := range files {
		total += files[i].Size + 1
	}
	arena := walk.NewArena(min(total, walk.KeepBudget+int64(len(files))))
	defer arena.Release() // the index holds copies of what it extracted, never the contents
	if err := walk.Hash(ctx, abs, files, sc, arena, opts.Workers); err != nil {
		return nil, err
	}
	hash := walk.SnapshotHash(files)
	var cacheFile string
	var saveErr error
	if !opts.NoCache {
		if err := sc.Save(files); err != nil {
			saveErr = err
		}
		cacheFile = filepath.Join(cacheDir, hash, "index-"+opts.fingerprint()+".bin")
		// A KeepParsed open loads an index only with its parse results, so that it can serve as
		// a Base; without them it is built again.
		_, noParsed := os.Stat(parsedFile(cacheFile))
		if ix, err := store.ReadIndex(cacheFile); err == nil && ix.Hash == hash && (!opts.KeepParsed || noParsed == nil) {
			ix.Root = abs
			ix.CacheFile = cacheFile
			ix.Stats.Loaded = true
			ix.Stats.Seconds = time.Since(t0).Seconds()
			return ix, nil
		}
	}
	var prior map[store.Key]*FileResult
	if opts.Base != nil && opts.Base.CacheFile != "" && !opts.NoCache {
		prior, _ = store.ReadParsed(parsedFile(opts.Base.CacheFile)) // none: every file is parsed
	}
	var skipped []Skipped
	for _, s := range wskipped {
		skipped = append(skipped, Skipped{Path: s.Path, Reason: s.Reason})
	}
	var prev *previous
	if prior != nil && opts.Base.Root != "" {
		prev = &previous{root: opts.Base.Root, prior: prior}
	}
	b, err := build(ctx, abs, files, langsOf(files), skipped, prior, prev, opts)
	if err != nil {
		return nil, err
	}
	ix := b.ix
	ix.Hash = hash
	if prior != nil {
		ix.Base = opts.Base.Root
	}
	ix.Stats.Seconds = time.Since(t0).Seconds()
	if !opts.NoCache {
		ix.CacheFile = cacheFile
		if err := store.WriteIndex(cacheFile, ix); err != nil {
			ix.CacheErr = err
		} else if opts.KeepParsed {
			if err := store.WriteParsed(parsedFile(cacheFile), b.parsed); err != nil {
				ix.CacheErr = err
			}
		}
		if ix.CacheErr == nil {
			ix.CacheErr = saveErr
		}
	}
	return ix, nil
}

// langsOf gives each file its language by name; headers are C++ in a repository with more C++
// than C sources.
func langsOf(files []walk.File) []Lang {
	nC, nCPP := 0, 0
	for i := range files {
		switch strings.ToLower(path.Ext(files[i].Path)) {
		case ".c":
			nC++
		case ".cc", ".cpp", ".cxx", ".c++":
			nCPP++
		}
	}
	langs := make([]Lang, len(files))
	for i := range files {
		langs[i] = lang.Of(files[i].Path, nCPP > nC)
	}
	return langs
}
