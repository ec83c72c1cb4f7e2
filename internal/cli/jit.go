package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

func newSuiteJitCmd(e *env) *cobra.Command {
	var (
		repoDir, fix, file, function, url, cve, out string
		in, repos                                   string
		cwe                                         []string
		maxCommits, concurrency                     int
	)
	c := &cobra.Command{
		Use:   "jit (--repo DIR --fix COMMIT --file PATH --function NAME | --in RECORDS.jsonl --repos DIR --out SUITE.jsonl)",
		Short: "Build JitVul pairs (vul at the introducing commit, ben at the fix) from git history",
		Long: `Builds a JitVul pair from a fix commit and a target function: ` + jitvul.Rule + `.

The vul case is the repository at the introducing commit with f_vul as its code; the ben case is
the repository at the fix with f_ben. Functions are extracted with the code graph (tree-sitter).
Each case's meta "jit" records how the walk went: commits walked, merges passed, the commits of
the walk that changed the file, and the stop reason (text first appears, function added, file
added, file renamed, function moved, history ends), with "from" for a rename or a move.
Blobs are read with one git cat-file --batch per repository; nothing is checked out.

With --in, reads PrimeVul v0.1-shaped records (project_url, commit_id, file_name, and func or
function_name; cwe, cve, idx when present), finds each repository under --repos
(DIR/HOST/OWNER/NAME, DIR/OWNER/NAME, DIR/OWNER+NAME or DIR/NAME, each also with .git), traces
them in parallel and prints every record it dropped and why: function not found, file deleted by
the fix, f_vul never changes within --max-commits, identical halves after whitespace
normalisation, repository or commit missing. Malformed lines stop it with FILE:LINE errors and
nothing is written.`,
		Example: `  vulnbench suite jit --repo ~/src/zlib --fix 5c44459 --file inflate.c --function inflate --cve CVE-2022-37434
  vulnbench suite jit --in primevul_test_paired.jsonl --repos ~/clones --out jit.jsonl`,
		Args: exactArgs(0, "no arguments (use the flags)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := jitvul.Options{MaxCommits: maxCommits, Workers: concurrency}
			if maxCommits < 1 || concurrency < 1 {
				return usageErr("--max-commits and --concurrency must be at least 1")
			}
			batch := in != "" || repos != ""
			single := repoDir != "" || fix != "" || file != "" || function != ""
			switch {
			case batch && single:
				return usageErr("give either --repo, --fix, --file and --function, or --in and --repos, not both")
			case batch && (in == "" || repos == "" || out == ""):
				return usageErr("batch mode needs --in RECORDS.jsonl, --repos DIR and --out SUITE.jsonl")
			case batch:
				return jitBatch(cmd, e, opts, in, repos, out)
			case repoDir == "" || fix == "" || file == "" || function == "":
				return usageErr("suite jit needs --repo DIR --fix COMMIT --file PATH --function NAME (or --in and --repos)")
			}
			if url == "" {
				url = jitvul.OriginURL(repoDir)
			}
			if url == "" {
				return usageErr("%s has no origin remote: say which repository URL the cases name with --url https://HOST/OWNER/NAME", repoDir)
			}
			s := jitvul.NewSession(opts)
			defer s.Close()
			p, err := s.Trace(cmd.Context(), repoDir, jitvul.Request{URL: url, Fix: fix, File: filepath.ToSlash(file),
				Function: function, CWE: cwe, CVE: cve})
			var de *jitvul.DropError
			if errors.As(err, &de) {
				return &exitError{code: ExitFail, err: fmt.Errorf("no pair: %v", de)}
			}
			if err != nil {
				return err
			}
			if err := p.WriteSuite(e.stdout, out); err != nil {
				return err
			}
			w := p.Walk
			fmt.Fprintf(e.stderr, "pair %s: introducing commit %s (%s; %d commits walked, %d merges passed, %d changed the file)\n",
				p.Vul.Pair, w.Intro, w.StopText(), w.CommitsWalked, w.MergesPassed, w.FileChanges)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&repoDir, "repo", "", "the repository (a clone or a bare repository)")
	f.StringVar(&fix, "fix", "", "the fix commit")
	f.StringVar(&file, "file", "", "the target function's file, relative to the repository root")
	f.StringVar(&function, "function", "", "the target function's name")
	f.StringVar(&url, "url", "", "repo.url of the cases (default: the origin remote of --repo)")
	f.StringSliceVar(&cwe, "cwe", nil, "CWE ids of the vulnerability (CWE-787,...)")
	f.StringVar(&cve, "cve", "", "CVE id of the vulnerability")
	f.StringVar(&out, "out", "", "suite file to write (replaced atomically; default standard output with --repo)")
	f.StringVar(&in, "in", "", "PrimeVul v0.1-shaped records to trace (batch mode)")
	f.StringVar(&repos, "repos", "", "directory of the records' repositories (batch mode)")
	f.IntVar(&maxCommits, "max-commits", jitvul.DefaultMaxCommits, "first-parent commits walked back from the fix's parent at most")
	f.IntVar(&concurrency, "concurrency", runtime.GOMAXPROCS(0), "records traced at once (batch mode)")
	return c
}

func jitBatch(cmd *cobra.Command, e *env, opts jitvul.Options, in, repos, out string) error {
	s := jitvul.NewSession(opts)
	defer s.Close()
	var rep jitvul.BatchReport
	err := writeSuiteFrom(e, in, out, func(f io.Reader, sw *suite.Writer) (problems []error, err error) {
		rep, problems, err = s.Batch(cmd.Context(), f, in, repos, sw)
		return problems, err
	})
	if err != nil {
		return err
	}
	rep.WriteText(e.stderr, in)
	fmt.Fprintf(e.stdout, "%s: %d pairs (%d cases) from %d records, %d dropped\n", out, rep.Pairs, 2*rep.Pairs, rep.Records, len(rep.Dropped))
	return nil
}
