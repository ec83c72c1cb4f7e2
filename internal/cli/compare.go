package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vulnbench/vulnbench/internal/score"
	"github.com/vulnbench/vulnbench/internal/stats"
)

// comparison is compare's result; its JSON is the contract of DESIGN.md section 3.
type comparison struct {
	A       string        `json:"a"`
	B       string        `json:"b"`
	N       int           `json:"n"`
	ScoresA figures       `json:"scores_a"`
	ScoresB figures       `json:"scores_b"`
	McNemar mcnemar       `json:"mcnemar"`
	Delta   *score.Deltas `json:"delta"`
	Youden  youden        `json:"youden"`
}

type figures struct {
	F1       float64  `json:"f1"`
	PAcc     *float64 `json:"pacc,omitempty"`
	Accuracy float64  `json:"accuracy"`
}

// mcnemar: B counts cases only A got right, C cases only B got right, N cases both judged.
type mcnemar struct {
	N      int     `json:"n"`
	B      int     `json:"b"`
	C      int     `json:"c"`
	PValue float64 `json:"p_value"`
}

type youdenCWE struct {
	N int     `json:"n"`
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// youden is the OWASP Benchmark scorecard figure: TPR - FPR per CWE, averaged over the CWEs
// that have both vulnerable and benign cases (Skipped counts the others).
type youden struct {
	A       float64              `json:"a"`
	B       float64              `json:"b"`
	Delta   float64              `json:"delta"`
	CWEs    int                  `json:"cwes"`
	Skipped int                  `json:"skipped"`
	ByCWE   map[string]youdenCWE `json:"by_cwe"`
}

func newCompareCmd(e *env) *cobra.Command {
	var (
		sf          scoreFlags
		suitePath   string
		db          string
		runs, preds []string
	)
	c := &cobra.Command{
		Use:   "compare --suite SUITE (--run A --run B | --predictions A --predictions B)",
		Short: "Tell two subjects apart on one suite: McNemar, paired bootstrap, per-CWE Youden",
		Long: `Compares two runs (or two predictions files) on the same suite, case by case:
  - McNemar's exact test on paired correctness: b counts cases only A got right, c cases only B
    got right; p = min(1, 2 P(X <= min(b, c))), X ~ Binomial(b + c, 1/2). Cases where either has
    an error or no verdict are left out; failed verdicts count per --unparsed-as.
  - A paired bootstrap of the differences A - B in F1, pAcc and accuracy: each resample draws the
    same units for both (projects when the suite names at least 10, else pairs, else cases), and
    the interval is the 2.5 and 97.5 percentiles (--resamples, --seed).
  - The Youden index TPR - FPR per CWE, averaged over the CWEs that have vul and ben cases, as
    the OWASP Benchmark scorecards do.
With repeats, repeat 0 of each run is compared.`,
		Example: `  vulnbench compare --suite test.jsonl --run RUN_A --run RUN_B
  vulnbench compare --suite test.jsonl --predictions a.jsonl --predictions b.jsonl --format json`,
		Args: exactArgs(0, "no arguments (use --suite with two --run or two --predictions)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(sf.format, "text", "md", "json"); err != nil {
				return err
			}
			format := sf.format
			if err := sf.validate(); err != nil {
				return err
			}
			if suitePath == "" || !((len(runs) == 2 && len(preds) == 0) || (len(preds) == 2 && len(runs) == 0)) {
				return usageErr("compare needs --suite SUITE and either two --run IDs or two --predictions FILEs")
			}
			t, err := loadTruth(suitePath, &sf.after, e.stderr)
			if err != nil {
				return err
			}
			var as [2]*answers
			var names [2]string
			if len(runs) == 2 {
				st, err := openExisting(cmd.Context(), db)
				if err != nil {
					return err
				}
				defer st.Close()
				for i, id := range runs {
					a, run, err := runAnswers(cmd.Context(), st, id, t, e.stderr)
					if err != nil {
						return err
					}
					as[i], names[i] = a, run.ID+" ("+run.Subject+")"
				}
			} else {
				for i, p := range preds {
					a, err := predictionsAnswers(p, t, e.stderr)
					if err != nil {
						return err
					}
					as[i], names[i] = a, filepath.Base(p)
				}
				if names[0] == names[1] {
					names = [2]string(preds)
				}
			}
			cmp, err := compareAnswers(t, as, names, sf.options(), score.CIOptions{Resamples: sf.resamples, Seed: sf.ciSeed}, e.stderr)
			if err != nil {
				return err
			}
			return writeComparison(e.stdout, format, cmp)
		},
	}
	f := c.Flags()
	f.StringVar(&suitePath, "suite", "", "suite file holding the ground truth")
	f.StringArrayVar(&runs, "run", nil, "run id (give exactly two)")
	f.StringArrayVar(&preds, "predictions", nil, "predictions file (give exactly two)")
	f.StringVar(&db, "db", "vulnbench.db", "store holding the runs")
	f.StringVar(&sf.format, "format", "text", "text, md or json")
	f.StringVar(&sf.unparsedAs, "unparsed-as", "failed", "how failed (unparseable) verdicts count: failed (wrong) or ben")
	f.IntVar(&sf.resamples, "resamples", score.DefaultResamples, "paired bootstrap resamples")
	f.Uint64Var(&sf.ciSeed, "seed", 1, "seed of the bootstrap resamples")
	sf.after.add(f)
	return c
}

// firstRepeat is the answers of the lowest repeat, saying so when there are several.
func firstRepeat(a *answers, name string, warn io.Writer) []score.Answer {
	if len(a.byRepeat) == 0 {
		return nil
	}
	keys := make([]int, 0, len(a.byRepeat))
	for r := range a.byRepeat {
		keys = append(keys, r)
	}
	sort.Ints(keys)
	if len(keys) > 1 {
		fmt.Fprintf(warn, "vulnbench: note: %s has %d repeats: comparing repeat %d\n", name, len(keys), keys[0])
	}
	return a.byRepeat[keys[0]]
}

func compareAnswers(t *truth, as [2]*answers, names [2]string, opt score.Options, co score.CIOptions, warn io.Writer) (*comparison, error) {
	xa, xb := firstRepeat(as[0], names[0], warn), firstRepeat(as[1], names[1], warn)
	cmp := &comparison{A: names[0], B: names[1], N: len(t.cases)}
	for i := range t.cases {
		var ya, yb score.Answer
		if i < len(xa) {
			ya = xa[i]
		}
		if i < len(xb) {
			yb = xb[i]
		}
		ca, oka := score.Correct(t.cases[i].Label, ya, opt)
		cb, okb := score.Correct(t.cases[i].Label, yb, opt)
		if !oka || !okb {
			continue
		}
		cmp.McNemar.N++
		switch {
		case ca && !cb:
			cmp.McNemar.B++
		case cb && !ca:
			cmp.McNemar.C++
		}
	}
	cmp.McNemar.PValue = stats.McNemarExact(cmp.McNemar.B, cmp.McNemar.C)
	d, err := score.PairedDeltas(t.cases, xa, xb, opt, co)
	if err != nil {
		return nil, err
	}
	cmp.Delta = d
	ra, rb := score.Compute(t.cases, xa, opt), score.Compute(t.cases, xb, opt)
	cmp.ScoresA, cmp.ScoresB = figuresOf(ra), figuresOf(rb)

	cmp.Youden.ByCWE = map[string]youdenCWE{}
	seen := map[string]bool{}
	for w := range ra.ByCWE {
		seen[w] = true
	}
	for w := range rb.ByCWE {
		seen[w] = true
	}
	for w := range seen {
		a, b := ra.ByCWE[w], rb.ByCWE[w]
		ja, oka := stats.Youden(a.TP, a.FN, a.FP, a.TN)
		jb, okb := stats.Youden(b.TP, b.FN, b.FP, b.TN)
		if !oka || !okb {
			cmp.Youden.Skipped++
			continue
		}
		cmp.Youden.ByCWE[w] = youdenCWE{N: max(a.N, b.N), A: ja, B: jb}
		cmp.Youden.A += ja
		cmp.Youden.B += jb
		cmp.Youden.CWEs++
	}
	if cmp.Youden.CWEs > 0 {
		cmp.Youden.A /= float64(cmp.Youden.CWEs)
		cmp.Youden.B /= float64(cmp.Youden.CWEs)
	}
	cmp.Youden.Delta = cmp.Youden.A - cmp.Youden.B
	return cmp, nil
}

func figuresOf(r score.Result) figures {
	f := figures{F1: r.Binary.F1, Accuracy: r.Binary.Accuracy}
	if r.Pairwise != nil {
		p := r.Pairwise.PAcc
		f.PAcc = &p
	}
	return f
}

func writeComparison(w io.Writer, format string, c *comparison) error {
	if format == "json" {
		b, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	pct := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }
	pts := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }
	iv := func(i stats.Interval) string { return "[" + pts(i[0]) + ", " + pts(i[1]) + "]" }
	rows := [][]string{{"metric", "A", "B", "A - B (points)", fmt.Sprintf("%g%% CI", 100*c.Delta.Level)}}
	rows = append(rows, []string{"F1", pct(c.ScoresA.F1), pct(c.ScoresB.F1), pts(c.Delta.F1.Value), iv(c.Delta.F1.CI)})
	if c.Delta.PAcc != nil && c.ScoresA.PAcc != nil && c.ScoresB.PAcc != nil {
		rows = append(rows, []string{"pAcc", pct(*c.ScoresA.PAcc), pct(*c.ScoresB.PAcc), pts(c.Delta.PAcc.Value), iv(c.Delta.PAcc.CI)})
	}
	rows = append(rows, []string{"accuracy", pct(c.ScoresA.Accuracy), pct(c.ScoresB.Accuracy), pts(c.Delta.Accuracy.Value), iv(c.Delta.Accuracy.CI)})
	rows = append(rows, []string{"Youden (mean over CWEs)", pts(c.Youden.A), pts(c.Youden.B), pts(c.Youden.Delta), "-"})
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s\nB: %s\n\n", c.A, c.B)
	if format == "md" {
		for i, r := range rows {
			b.WriteString("| " + strings.Join(r, " | ") + " |\n")
			if i == 0 {
				b.WriteString("| :---" + strings.Repeat(" | ---:", len(r)-1) + " |\n")
			}
		}
	} else {
		width := make([]int, len(rows[0]))
		for _, r := range rows {
			for i, x := range r {
				width[i] = max(width[i], len(x))
			}
		}
		for _, r := range rows {
			for i, x := range r {
				if i > 0 {
					b.WriteString("  ")
				}
				if i == len(r)-1 {
					b.WriteString(x)
				} else {
					b.WriteString(x + strings.Repeat(" ", width[i]-len(x)))
				}
			}
			b.WriteString("\n")
		}
	}
	m := c.McNemar
	verdict := "no significant difference at 5%"
	if m.PValue < 0.05 {
		verdict = "significant at 5%"
	}
	fmt.Fprintf(&b, "\nMcNemar exact: %d cases judged by both; only A right %d, only B right %d; p = %.4g (%s)\n", m.N, m.B, m.C, m.PValue, verdict)
	fmt.Fprintf(&b, "bootstrap: %d resamples of %d %s units, seed %d\n", c.Delta.Resamples, c.Delta.Units, c.Delta.By, c.Delta.Seed)
	fmt.Fprintf(&b, "Youden: %d CWEs with vul and ben cases (%d skipped)\n", c.Youden.CWEs, c.Youden.Skipped)
	if len(c.Youden.ByCWE) > 0 {
		cwes := make([]string, 0, len(c.Youden.ByCWE))
		for w := range c.Youden.ByCWE {
			cwes = append(cwes, w)
		}
		slices.Sort(cwes)
		for _, w := range cwes {
			y := c.Youden.ByCWE[w]
			fmt.Fprintf(&b, "  %-12s n=%-6d A %6s  B %6s\n", w, y.N, pts(y.A), pts(y.B))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
