package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/label"
	"github.com/vulnbench/vulnbench/internal/store"
)

func newLabelCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "label",
		Short: "Label a suite with several annotators: projects, links, agreement, adjudication, the labelled suite",
		Long: `A labelling project is a suite's cases to label (vex: each case's status and category, as
VEX-Bench's experts did; --audit N: whether N sampled cases' ground truth is right, as
PrimeVul's label-accuracy study did) by named annotators, each with a personal link to the
viewer (vulnbench serve --labels). Every annotator labels the calibration set first, then the
cases assigned to them (--overlap annotators a case); every label is an append-only row in the
store, so revisions keep their history. Adjudicators resolve disagreements with a reason.

  label init      make a project and print each annotator's link
  label link      a new link for an annotator (the old one stops working)
  label report    agreement (Fleiss' and Cohen's kappa with intervals, per category, the
                  raters' confusion), the share confirmed without revision, label accuracy
  label export    the labelled suite (or with --rows every label row)
  label import    label rows made elsewhere (JSONL), through the viewer's checks`,
		Args: exactArgs(0, "a subcommand (init, link, report, export, import)"),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(newLabelInitCmd(e), newLabelLinkCmd(e), newLabelReportCmd(e), newLabelExportCmd(e), newLabelImportCmd(e))
	return c
}

func newLabelInitCmd(e *env) *cobra.Command {
	var (
		db, suitePath, project, advisories, repos, url string
		annotators, adjudicators                       []string
		overlap, calibration, audit                    int
		seed                                           uint64
		showHints                                      bool
	)
	c := &cobra.Command{
		Use:   "init --suite SUITE.jsonl --project NAME --annotator NAME... [--overlap 2] [--calibration 15] [--audit N]",
		Short: "Make a labelling project over a suite and print each annotator's personal link",
		Long: `Reads the suite (a mined one's vex cases may be unlabelled), draws the calibration set that
every annotator labels first and assigns every other case to --overlap annotators in turn
(--seed fixes both); with --audit N it draws N cases of any suite whose ground truth every
annotator judges. Each annotator and --adjudicator gets a personal link, printed once (only
its hash is stored; label link makes a new one). --advisories shows each vex case's advisories
on its page; --repos is where the cases' repositories are for their code.`,
		Example: `  vulnbench label init --suite mined.jsonl --project deps-2026 --annotator ana --annotator ben --annotator cy \
      --adjudicator dee --overlap 2 --calibration 15 --advisories ~/advisories --repos ~/clones
  vulnbench label init --suite primevul-test.jsonl --project pv-audit --audit 50 --annotator ana --annotator ben --annotator cy`,
		Args: exactArgs(0, "no arguments (use the flags)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if suitePath == "" || project == "" || len(annotators) == 0 {
				return usageErr("label init needs --suite SUITE.jsonl, --project NAME and --annotator NAME (repeated)")
			}
			if overlap < 0 || calibration < 0 || audit < 0 {
				return usageErr("--overlap, --calibration and --audit are counts, 0 or more")
			}
			spec := label.Spec{ID: project, SuitePath: suitePath, Annotators: annotators, Adjudicators: adjudicators, Overlap: overlap,
				Calibration: calibration, Audit: audit, Seed: seed, Repos: repos, ShowHints: showHints, Reading: e.reading}
			if advisories != "" {
				adb, err := advisory.Open(advisories)
				if err != nil {
					return err
				}
				defer adb.Close()
				spec.Advisories = adb
			}
			st, err := store.Open(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			links, problems, err := label.Init(cmd.Context(), st, spec)
			if len(problems) > 0 {
				reportProblems(e.stderr, problems, 20)
				return &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems: no project made", suitePath, len(problems))}
			}
			if err != nil {
				return err
			}
			p, err := label.Load(cmd.Context(), st, project)
			if err != nil {
				return err
			}
			p.WriteLinks(e.stdout, db, url, links)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&db, "db", "vulnbench.db", "store to keep the project and its labels in (SQLite file or postgres:// DSN)")
	f.StringVar(&suitePath, "suite", "", "suite to label (suite mine vex writes one)")
	f.StringVar(&project, "project", "", "the project's name (letters, digits, - _ .)")
	f.StringArrayVar(&annotators, "annotator", nil, "an annotator's name (repeat for each)")
	f.StringArrayVar(&adjudicators, "adjudicator", nil, "an adjudicator's name, who resolves disagreements (may also be an annotator; repeatable)")
	f.IntVar(&overlap, "overlap", 0, "annotators per case outside the calibration set (0: 2, or all in an audit)")
	f.IntVar(&calibration, "calibration", 0, "cases every annotator labels first (VEX-Bench calibrated on 15)")
	f.IntVar(&audit, "audit", 0, "audit mode: judge the ground truth of N cases drawn from the suite (PrimeVul drew 50)")
	f.Uint64Var(&seed, "seed", 1, "seed of the calibration draw, the audit sample and the assignment")
	f.StringVar(&advisories, "advisories", "", "OSV records for the cases' pages (a directory or a .zip export)")
	f.StringVar(&repos, "repos", "", "where the cases' repositories are, for their code on the pages")
	f.BoolVar(&showHints, "show-hints", false, "show annotators the tool answers a case carries in meta.hints (by default they label blind)")
	f.StringVar(&url, "url", "http://127.0.0.1:8080", "the viewer's address the links start with (serve --addr)")
	return c
}

func newLabelLinkCmd(e *env) *cobra.Command {
	var db, project, annotator, url string
	c := &cobra.Command{
		Use:   "link --project NAME --annotator NAME",
		Short: "Make a new personal link for an annotator (the old one stops working)",
		Args:  exactArgs(0, "no arguments (use the flags)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if project == "" || annotator == "" {
				return usageErr("label link needs --project NAME and --annotator NAME")
			}
			st, err := openExisting(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			token, err := label.NewLink(cmd.Context(), st, project, annotator)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s: %s\n", annotator, label.LinkURL(url, project, token))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&db, "db", "vulnbench.db", "store holding the project")
	f.StringVar(&project, "project", "", "the project")
	f.StringVar(&annotator, "annotator", "", "the annotator")
	f.StringVar(&url, "url", "http://127.0.0.1:8080", "the viewer's address the link starts with")
	return c
}

// loadProject opens the store and reads a project.
func loadProject(cmd *cobra.Command, db, project string, write bool) (*store.Store, *label.Project, error) {
	if project == "" {
		return nil, nil, usageErr("needs --project NAME")
	}
	open := openRead
	if write {
		open = openExisting
	}
	st, err := open(cmd.Context(), db)
	if err != nil {
		return nil, nil, err
	}
	p, err := label.Load(cmd.Context(), st, project)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, p, nil
}

func newLabelReportCmd(e *env) *cobra.Command {
	var db, project, format string
	c := &cobra.Command{
		Use:   "report --project NAME [--format FORMAT]",
		Short: "Print a project's agreement and accuracy figures, as the papers give them",
		Long: `Prints, for the first labels (the paper's initial agreement) and the current ones, Fleiss'
kappa over all raters (of the status too), Cohen's per pair, 95 % bootstrap intervals, per
category kappa and specific agreement, the raters' confusion; the calibration's agreement once
all answered; the share confirmed without revision; how the cases stand; an audit's accuracy.`,
		Args: exactArgs(0, "no arguments (use the flags)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format, (*label.Report)(nil)); err != nil {
				return err
			}
			st, p, err := loadProject(cmd, db, project, false)
			if err != nil {
				return err
			}
			defer st.Close()
			return present(e.stdout, format, p.BuildReport())
		},
	}
	f := c.Flags()
	f.StringVar(&db, "db", "vulnbench.db", "store holding the project")
	f.StringVar(&project, "project", "", "the project")
	f.StringVar(&format, "format", "md", formatUsage((*label.Report)(nil)))
	return c
}

func newLabelExportCmd(e *env) *cobra.Command {
	var db, project, out string
	var rows, partial bool
	c := &cobra.Command{
		Use:   "export --project NAME --out FILE [--rows] [--partial]",
		Short: "Write the labelled suite (or with --rows every label row) of a project",
		Long: `Writes the labelled suite: each case's ground truth is its settled label (the latest
adjudication, else the annotators' agreeing labels), label vul for vulnerable and ben for any
other category, the other categories they found acceptable in vex.alternatives (lenient
scoring counts an answer among them as right), and meta.annotation (the raters and their
labels, first and current, how it was settled, by whom and why, the project's Fleiss' kappa).
Cases not settled (disagreed, unlabelled) are refused by name unless --partial leaves them out.
In an audit the sampled cases are written as they are, with the judgement in meta.annotation.
With --rows every label row is written as JSONL, the whole history, as label import reads it.`,
		Args: exactArgs(0, "no arguments (use the flags)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageErr("label export needs --out FILE")
			}
			st, p, err := loadProject(cmd, db, project, false)
			if err != nil {
				return err
			}
			defer st.Close()
			msg, err := p.ExportFile(out, rows, partial)
			if err != nil {
				return &exitError{code: ExitFail, err: err}
			}
			fmt.Fprintln(e.stdout, msg)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&db, "db", "vulnbench.db", "store holding the project")
	f.StringVar(&project, "project", "", "the project")
	f.StringVar(&out, "out", "", "file to write (replaced atomically)")
	f.BoolVar(&rows, "rows", false, "write every label row (JSONL) instead of the labelled suite")
	f.BoolVar(&partial, "partial", false, "leave the cases not settled out instead of refusing")
	return c
}

func newLabelImportCmd(e *env) *cobra.Command {
	var db, project, in string
	c := &cobra.Command{
		Use:   "import --project NAME --in ROWS.jsonl",
		Short: "Add label rows made elsewhere (JSONL), through the viewer's checks",
		Long: `Reads one label row a line, {"case", "annotator", "kind" (label or adjudication), "answer"}
as label export --rows writes them, through the viewer's checks. One bad line (FILE:LINE) and
nothing is written.`,
		Args: exactArgs(0, "no arguments (use the flags)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in == "" {
				return usageErr("label import needs --in ROWS.jsonl")
			}
			st, p, err := loadProject(cmd, db, project, true)
			if err != nil {
				return err
			}
			defer st.Close()
			n, problems, err := p.ImportFile(cmd.Context(), st, in, e.reading)
			if len(problems) > 0 {
				reportProblems(e.stderr, problems, 20)
				return &exitError{code: ExitFail, err: fmt.Errorf("%s: %d problems: nothing imported", in, len(problems))}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s: %d label rows added to %s\n", in, n, p.ID)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&db, "db", "vulnbench.db", "store holding the project")
	f.StringVar(&project, "project", "", "the project")
	f.StringVar(&in, "in", "", "the rows to import")
	return c
}
