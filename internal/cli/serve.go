package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/web"
	labelsweb "github.com/vulnbench/vulnbench/internal/web/labels"
)

func newServeCmd(e *env) *cobra.Command {
	var db, addr, scoring, repos string
	var labels bool
	var runs, resamples, memLimit, childLimit int
	var allowHosts []string
	var allowRemote bool
	c := &cobra.Command{
		Use:   "serve [--db DSN] [--addr 127.0.0.1:8080]",
		Short: "Browse a store in a web browser: runs, scores and plots, cases, traces, comparisons",
		Long: `Serves a read-only viewer over a store (it never writes to it):
  /                       the runs
  /runs/ID                a run's report: score tables, plots, ROC with the VD-S point
  /runs/ID/cases          its cases, 50 a page, sortable, filtered by label, status, CWE,
                          language, outcome (tp, fp, tn, fn, failed, error, missing) and
                          "flipped against another run"
  /runs/ID/case?id=CASE   one case: code with the target lines marked, ground truth, every
                          attempt with its verdict and its trace turn by turn (tool calls,
                          observations, tokens, cost, latency)
  /compare?a=ID&b=ID      McNemar's test, the paired deltas, the flips
With --labels it also serves the labelling projects' pages, /label/PROJECT/... (see vulnbench
label --help), writing their labels to the store (the runs' pages stay read-only).
It listens on loopback unless --addr says otherwise; anyone who can reach it reads the store, so
a non-loopback --addr needs --allow-remote. It answers only requests for an IP address,
localhost or a name given with --allow-host (a web page cannot read it through DNS rebinding),
and refuses cross-origin requests (Origin, Sec-Fetch-Site) other than following a link.

The first request for a run scores it (a run of a million verdicts takes tens of seconds) and
builds its cases index; both are kept for the last --cache-runs runs, keyed by the run's state
and attempt count, so a run that ended is computed once and a running run when it changed.
Scoring runs in the server itself (--scoring process). On a store of two runs of a million
verdicts on one suite (bench/serve.sh), the server peaks at about 150 MiB with one run page and
both runs' cases pages open, and at 185 MiB while it scores the second run page; 50 MiB of that
is the executable's own pages. Runs of the same cases share the columns of their cases index.
Under the default --memory-limit of 100 MiB the collector works hard while such a run is scored
(about 1.5x the CPU it takes at 150 MiB, which peaks at 207 MiB): raise it when memory is
plentiful. --scoring child scores in a child process instead (one per run page or comparison,
answering in JSON), each under --scoring-memory-limit: the server stays as small as its case indexes
(137 MiB on that store), but server and child together peak higher (about 290-360 MiB: two
runtimes, two copies of the binary's pages).`,
		Example: `  vulnbench serve --db vulnbench.db
  vulnbench serve --db postgres://host/vb --addr 127.0.0.1:9000`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := web.CheckBind(addr, allowRemote); err != nil {
				return usageErr("%v", err)
			}
			ctx := cmd.Context()
			opt := web.Options{Runs: runs, Resamples: resamples}
			switch scoring {
			case "child":
				exe, err := os.Executable()
				if err != nil {
					return fmt.Errorf("find the vulnbench binary for --scoring child: %w (use --scoring process)", err)
				}
				opt.Scorer = web.Child{Exe: exe, DB: db, Resamples: resamples, MemoryLimit: childLimit}
			case "process":
			default:
				return usageErr("--scoring %q is not child or process", scoring)
			}
			if memLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
				// A soft limit: the collector runs sooner as the heap nears it, so the garbage a
				// big run's case index leaves while it is built does not double the footprint.
				debug.SetMemoryLimit(int64(memLimit) << 20)
			}
			open := openRead
			if labels {
				open = openExisting // the labels are written
			}
			st, err := open(ctx, db)
			if err != nil {
				return err
			}
			defer st.Close()
			var handler http.Handler = web.New(st, opt)
			if labels {
				if handler, err = labelsweb.Mount(handler, st, repos); err != nil {
					return err
				}
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return &exitError{code: ExitFail, err: fmt.Errorf("listen on %s: %w (pick another with --addr)", addr, err)}
			}
			if allowRemote && web.CheckBind(addr, false) != nil {
				fmt.Fprintf(e.stderr, "vulnbench: --allow-remote: %s is reachable from other machines; whoever reaches it reads the store\n", ln.Addr())
			}
			fmt.Fprintf(e.stdout, "vulnbench: serving %s on http://%s/ (Ctrl-C stops)\n", db, ln.Addr())
			return web.Serve(ctx, ln, web.Guard(handler, allowHosts))
		},
	}
	f := c.Flags()
	f.StringVar(&db, "db", "vulnbench.db", "store to browse (SQLite file or postgres:// DSN)")
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	f.StringSliceVar(&allowHosts, "allow-host", nil, "host names the viewer answers for besides IP addresses and localhost (repeatable; e.g. a name it is proxied under)")
	f.BoolVar(&allowRemote, "allow-remote", false, "allow an --addr that is not loopback (the viewer has no login: anyone who reaches it reads the store)")
	f.IntVar(&runs, "cache-runs", 4, "how many runs' scores and case indexes to keep in memory")
	f.IntVar(&memLimit, "memory-limit", 100, "soft memory limit in MiB (Go's GC target; 0: none; GOMEMLIMIT overrides it); the cases index of a 1M-case suite takes ~26 MiB, shared by its runs, and each run adds 2 MiB (6 with tool calls): keep --cache-runs × that below it")
	f.IntVar(&childLimit, "scoring-memory-limit", 200, "soft memory limit in MiB of each scoring child (--scoring child; 0: none; GOMEMLIMIT overrides it): a run of 1M verdicts needs ~90 MiB of live heap to score, and a limit below that makes it slower, not smaller")
	f.StringVar(&scoring, "scoring", "process", "where runs are scored: process (the server) or child (a vulnbench process per run page or comparison)")
	f.BoolVar(&labels, "labels", false, "also serve the labelling projects' pages (/label/PROJECT/...), writing their labels to the store")
	f.StringVar(&repos, "repos", "", "with --labels: where the cases' repositories are, for their code (default: the project's label init --repos)")
	f.IntVar(&resamples, "resamples", 1000, "bootstrap resamples of the intervals a run page and a comparison show")
	c.AddCommand(newServeScoreCmd(e))
	return c
}

// newServeScoreCmd is serve's scoring child (web.Child): it scores one run page or one
// comparison in process and writes a web.ChildAnswer, JSON, on stdout; an error it could
// state is in the answer (exit 0), typed.
func newServeScoreCmd(e *env) *cobra.Command {
	var db string
	var runs []string
	var resamples int
	c := &cobra.Command{
		Use:    "score --db DSN --run ID [--run ID]",
		Short:  "serve's scoring child: a run page (one --run) or a comparison (two), as JSON",
		Hidden: true,
		Args:   exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			var a web.ChildAnswer
			if st, err := openExisting(ctx, db); err != nil {
				a = web.ChildAnswer{Error: &web.ChildError{Message: err.Error()}}
			} else {
				defer st.Close()
				a = web.Answer(ctx, web.InProcess{Store: st, Resamples: resamples}, runs)
			}
			return json.NewEncoder(e.stdout).Encode(a)
		},
	}
	f := c.Flags()
	f.StringVar(&db, "db", "vulnbench.db", "store holding the runs")
	f.StringArrayVar(&runs, "run", nil, "the run to score, or the two to compare")
	f.IntVar(&resamples, "resamples", 1000, "bootstrap resamples of the intervals")
	return c
}
