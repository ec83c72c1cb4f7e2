package codegraph

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vulnbench/vulnbench/internal/codegraph/extract"
	"github.com/vulnbench/vulnbench/internal/codegraph/store"
	"github.com/vulnbench/vulnbench/internal/codegraph/walk"
)

// built is an index with the parse result of each distinct file content, for KeepParsed.
type built struct {
	ix     *Index
	parsed []store.Parsed
}

// build parses the files in parallel, each distinct (content, language) once unless prior holds
// its result, and merges the results in path order. langs[i] is files[i]'s language.
// An edited file whose previous content (at the same path under prev's root) prior holds is
// parsed only where it changed.
func build(ctx context.Context, root string, files []walk.File, langs []Lang, skipped []Skipped, prior map[store.Key]*FileResult, prev *previous, opts Options) (*built, error) {
	// One job per distinct content; the largest first, so that no worker is left with a big file at the end.
	jobOf := make([]int, len(files))
	first := map[store.Key]int{}
	var jobs []int // file index of each job
	for i := range files {
		k := store.Key{Hash: files[i].Hash, Lang: langs[i]}
		j, ok := first[k]
		if !ok {
			j = len(jobs)
			first[k] = j
			jobs = append(jobs, i)
		}
		jobOf[i] = j
	}
	results := make([]*FileResult, len(jobs))
	var order []int // the jobs to parse
	for j, i := range jobs {
		if res, ok := prior[store.Key{Hash: files[i].Hash, Lang: langs[i]}]; ok {
			results[j] = res
			continue
		}
		order = append(order, j)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(files[jobs[b]].Size, files[jobs[a]].Size) })

	pst := &parseStats{}
	if len(order) > 0 {
		var err error
		if pst, err = parseJobs(ctx, root, files, langs, jobs, order, results, prev, opts); err != nil {
			return nil, err
		}
	}
	b := &built{ix: merge(root, files, langs, jobOf, results, skipped)}
	b.ix.Stats.Parsed, b.ix.Stats.Reused = len(order), len(jobs)-len(order)
	b.ix.Stats.PartParsed, b.ix.Stats.ParsedBytes = int(pst.part.Load()), pst.bytes.Load()
	if opts.KeepParsed {
		b.parsed = make([]store.Parsed, 0, len(jobs))
		for j, i := range jobs {
			if res := results[j]; !strings.HasPrefix(res.Skip, "unreadable") { // a read may work next time
				b.parsed = append(b.parsed, store.Parsed{Key: store.Key{Hash: files[i].Hash, Lang: langs[i]}, Result: res})
			}
		}
	}
	return b, nil
}

// parseStats counts what the parse workers did: files parsed in part, bytes read by the parser.
type parseStats struct {
	part  atomic.Int64
	bytes atomic.Int64
}

// parseJobs parses the files of the jobs in order on opts.Workers workers into results; an
// edited file with a previous content (prev) is parsed only where it changed.
func parseJobs(ctx context.Context, root string, files []walk.File, langs []Lang, jobs, order []int, results []*FileResult, prev *previous, opts Options) (*parseStats, error) {
	st := &parseStats{}
	gs, err := extract.LoadGrammars()
	if err != nil {
		return st, err
	}
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range min(opts.Workers, len(order)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fi, err := extract.New(gs, opts.limits())
			if err != nil {
				once.Do(func() { firstErr = err })
				return
			}
			defer fi.Close()
			fi.SetRegions(opts.KeepParsed) // kept parse results may serve a later part parse
			for {
				n := int(next.Add(1) - 1)
				if n >= len(order) || ctx.Err() != nil {
					return
				}
				j := order[n]
				c, l := &files[jobs[j]], langs[jobs[j]]
				src := c.Data
				if src == nil {
					var err error
					if src, err = walk.ReadFile(filepath.Join(root, filepath.FromSlash(c.Path)), c.Size, nil); err != nil {
						results[j] = &FileResult{Path: c.Path, Lang: l, Skip: "unreadable: " + walk.ErrText(err)}
						continue
					}
				}
				c.Data = nil
				old, prevRes := prev.of(c.Path, l)
				res, rp, err := indexSafely(fi, l, c.Path, src, old, prevRes)
				if rp.Part {
					st.part.Add(1)
				}
				st.bytes.Add(int64(rp.Bytes))
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("index %s: %w", c.Path, err) })
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
		return st, firstErr
	}
	return st, ctx.Err()
}

// merge puts the files' results together in path order (results[jobOf[i]] is files[i]'s) and
// resolves what depends on the whole snapshot: a reference is kept when it names a function the
// repository defines in that language.
func merge(root string, files []walk.File, langs []Lang, jobOf []int, results []*FileResult, skipped []Skipped) *Index {
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
	for i := range files {
		nf += len(results[jobOf[i]].Funcs)
		nc += len(results[jobOf[i]].Calls)
	}
	ix.Funcs = make([]Func, 0, nf)
	ix.Calls = make([]Call, 0, nc)
	for i := range files {
		c, res := &files[i], results[jobOf[i]]
		if res.Skip != "" {
			skipped = append(skipped, Skipped{Path: c.Path, Reason: res.Skip})
			continue
		}
		ix.Files = append(ix.Files, File{Path: c.Path, Lang: langs[i], Size: c.Size, Partial: res.Partial})
		ix.Stats.Bytes += c.Size
		if res.SyntaxErrors > 0 {
			ix.Stats.SyntaxErrors++
		}
		if res.Partial {
			ix.Stats.Partial++
		}
		base := len(ix.Funcs)
		same := res.Path == c.Path
		for _, f := range res.Funcs {
			if !same {
				f.File = c.Path
			}
			ix.Funcs = append(ix.Funcs, f)
		}
		for _, call := range res.Calls {
			if call.Kind == Reference && !funcNames[langName{res.Lang, call.Callee}] {
				continue
			}
			if !same {
				call.File = c.Path
			}
			if call.Caller >= 0 {
				call.Caller += base
			}
			ix.Calls = append(ix.Calls, call)
		}
	}
	slices.SortFunc(skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	ix.Skipped = skipped
	ix.Finish()
	return ix
}

// indexSafely indexes one file, only where it changed when old (its previous content, which
// gave prev) is given; a panic in the extractors skips that file rather than ending the whole run.
func indexSafely(fi *FileIndexer, l Lang, path string, src, old []byte, prev *FileResult) (res *FileResult, rp extract.Reparse, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = &FileResult{Path: path, Lang: l, Skip: fmt.Sprintf("indexer fault (please report): %v", r)}, nil
		}
	}()
	if old != nil {
		return fi.IndexEdited(l, path, src, old, prev)
	}
	res, err = fi.IndexFileAs(l, path, src)
	return res, extract.Reparse{Bytes: len(src)}, err
}
