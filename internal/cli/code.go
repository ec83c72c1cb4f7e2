package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/codegraph"
	"github.com/vulnbench/vulnbench/internal/codegraph/codeview"
	"github.com/vulnbench/vulnbench/internal/output"
)

// codeFlags are the options every code subcommand shares.
type codeFlags struct {
	repo        string
	cache       string
	noCache     bool
	maxFileSize int64
	format      string
}

func (c *codeFlags) add(f *pflag.FlagSet) {
	f.StringVar(&c.repo, "repo", "", "repository directory (required)")
	f.StringVar(&c.cache, "cache", "", "directory of persisted indexes (default: the user cache directory, vulnbench/codegraph)")
	f.BoolVar(&c.noCache, "no-cache", false, "neither read nor write a persisted index")
	f.Int64Var(&c.maxFileSize, "max-file-size", 2<<20, "skip larger files as oversized (bytes; 0 for no limit)")
	f.StringVar(&c.format, "format", "text", formatUsage(codeview.SummaryDoc{}))
}

func (c *codeFlags) validate(cmd string) error {
	if c.repo == "" {
		return usageErr("%s needs --repo DIR", cmd)
	}
	if c.maxFileSize < 0 {
		return usageErr("--max-file-size %d is negative", c.maxFileSize)
	}
	return checkFormat(c.format, codeview.SummaryDoc{})
}

func (c *codeFlags) open(cmd *cobra.Command, e *env) (*codegraph.Index, error) {
	return c.openFrom(cmd, e, "")
}

// openFrom opens --repo; with base set (a sibling snapshot's directory) it first opens base's
// index with its parse results kept and indexes --repo incrementally from it.
func (c *codeFlags) openFrom(cmd *cobra.Command, e *env, base string) (*codegraph.Index, error) {
	for flag, dir := range map[string]string{"--repo": c.repo, "--base": base} {
		if dir == "" {
			continue
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, &exitError{code: ExitFail, err: fmt.Errorf("%s %s is not a directory", flag, dir)}
		}
	}
	max := c.maxFileSize
	if max == 0 {
		max = -1
	}
	ix, warnings, err := codeview.Open(cmd.Context(), c.repo, base, codegraph.Options{CacheDir: c.cache, NoCache: c.noCache, MaxFileSize: max})
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "vulnbench: warning: %s\n", w)
	}
	if err != nil {
		return nil, err
	}
	return ix, nil
}

func newCodeCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "code",
		Short: "Index a repository's functions and calls; answer definition, callers and callees",
		Long: `The code graph holds every function definition and every call site of a repository's C, C++,
Java, Python, Go and JavaScript files, parsed with tree-sitter on every core. The index is saved
under the hash of the files' contents, so a second question on the same snapshot parses nothing.

Calls are matched by name, as cflow does; calls through function pointers, variables and
computed expressions are reported as unresolved, never guessed. Method calls (obj.m()) match by
method name and are marked: the receiver's type is not resolved. When a name has several
definitions, all are returned, nearest first to --file (and --line).`,
		Args: exactArgs(0, "a subcommand (index, callers, callees, definition)"),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(newCodeIndexCmd(e), newCodeQueryCmd(e, "callers"), newCodeQueryCmd(e, "callees"), newCodeQueryCmd(e, "definition"))
	return c
}

func newCodeIndexCmd(e *env) *cobra.Command {
	var (
		cf   codeFlags
		dump string
		base string
	)
	c := &cobra.Command{
		Use:   "index --repo DIR [--base DIR] [--dump defs|edges]",
		Short: "Index a repository and print a summary, or dump its definitions or call edges",
		Long: `Indexes every C, C++, Java, Python, Go and JavaScript file of the repository (or loads the index
saved for the same contents) and prints files, functions, call sites, what was skipped and why,
and the seconds it took. Vendored directories (vendor, node_modules, third_party, ...), symbolic
links, binary files, generated files (by name or a "DO NOT EDIT"-style marker), minified
JavaScript and files over --max-file-size are skipped; syntax errors are tolerated.

--base DIR indexes --repo incrementally from a sibling snapshot of the same repository (another
commit's checkout): DIR is indexed first, or its saved index loaded, with the parse result of
every file kept beside it (a second file about the size of the index); then a file of --repo
whose content DIR has is not parsed again, and an edited file (same path, other content) is
parsed only where it changed: the top-level units (functions, declarations, preprocessor
blocks) a line diff leaves unchanged are taken from DIR's parse, moved to their new lines. The
index is the same as without --base (it is a cache of work, never of answers); the summary says
how many files were reused, parsed whole and parsed in part, and the bytes parsed. DIR must not
change between the two (a file whose content differs from what DIR's index parsed is parsed
whole); --base needs the cache, so it does not go with --no-cache.

--dump defs prints one line per definition: name, file, start line, end line (tab-separated).
--dump edges prints one line per call: caller, callee, file, line (unresolved calls and calls
outside functions are left out). The summary then goes to stderr.`,
		Example: `  vulnbench code index --repo ./glibc-2.36
  vulnbench code index --repo ./glibc-2.36 --dump edges > edges.tsv
  git -C curl worktree add ../curl-fix 5c61e168
  vulnbench code index --base ./curl --repo ./curl-fix`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cf.validate("code index"); err != nil {
				return err
			}
			if dump != "" && dump != "defs" && dump != "edges" {
				return usageErr("--dump %q is not defs or edges", dump)
			}
			if base != "" && cf.noCache {
				return usageErr("--base keeps its parse results in the cache: drop --no-cache (or use --cache DIR)")
			}
			ix, err := cf.openFrom(cmd, e, base)
			if err != nil {
				return err
			}
			summary := e.stdout
			switch dump {
			case "defs":
				if err := ix.WriteDefs(e.stdout); err != nil {
					return err
				}
				summary = e.stderr
			case "edges":
				if err := ix.WriteEdges(e.stdout); err != nil {
					return err
				}
				summary = e.stderr
			}
			return present(summary, cf.format, codeview.SummaryDoc{Index: ix})
		},
	}
	cf.add(c.Flags())
	c.Flags().StringVar(&dump, "dump", "", "print the definitions (defs) or the call edges (edges) as TSV")
	c.Flags().StringVar(&base, "base", "", "index --repo incrementally from this sibling snapshot's directory (see above)")
	return c
}

func newCodeQueryCmd(e *env, what string) *cobra.Command {
	var (
		cf   codeFlags
		file string
		line int
	)
	short := map[string]string{
		"callers":    "List the call sites that call NAME: caller, file:line",
		"callees":    "List the calls made by each definition of NAME: callee, file:line",
		"definition": "Print the source of each definition of NAME, nearest first",
	}[what]
	c := &cobra.Command{
		Use:   what + " --repo DIR NAME",
		Short: short,
		Long: short + `.

NAME is a function's name (parse_config) or its qualified name (ns::Shape::area, pkg.T.M,
Class.method). --file and --line rank several definitions of one name: the same file first, then
the same directory, then the longest shared path; within the file, the one containing --line.
The repository is indexed first if its current contents were never indexed (see code index).
Exits 1 when NAME is neither defined nor called in the repository.`,
		Example: fmt.Sprintf("  vulnbench code %s --repo ./glibc-2.36 _IO_new_fopen\n  vulnbench code %s --repo . --format json --file src/a.c parse", what, what),
		Args:    exactArgs(1, "one function NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.validate("code " + what); err != nil {
				return err
			}
			if line < 0 {
				return usageErr("--line %d is negative", line)
			}
			name := args[0]
			ix, err := cf.open(cmd, e)
			if err != nil {
				return err
			}
			near := codegraph.Near{File: file, Line: line}
			var doc output.Document
			switch what {
			case "callers":
				d, err := codeview.Callers(ix, name, near)
				if err != nil {
					return notFoundExit(err)
				}
				if len(d.Callers) == 0 {
					defer fmt.Fprintf(e.stderr, "no callers of %s\n", name)
				}
				doc = d
			case "callees":
				d, err := codeview.Callees(ix, name, near)
				if err != nil {
					return notFoundExit(err)
				}
				doc = d
			default:
				d, err := codeview.Definitions(ix, name, near)
				if err != nil {
					return notFoundExit(err)
				}
				doc = d
			}
			return present(e.stdout, cf.format, doc)
		},
	}
	cf.add(c.Flags())
	c.Flags().StringVar(&file, "file", "", "rank definitions and call sites nearest to this file (relative to --repo) first")
	c.Flags().IntVar(&line, "line", 0, "with --file: prefer the definition containing this line")
	return c
}

// notFoundExit makes codeview's unknown-name error exit 1.
func notFoundExit(err error) error {
	var nf *codeview.NotFoundError
	if errors.As(err, &nf) {
		return &exitError{code: ExitFail, err: err}
	}
	return err
}
