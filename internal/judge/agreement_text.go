package judge

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/score"
)

// AgreementDoc is a judge's agreement with the calibration set, the document `vulnbench judge
// calibrate` writes (output.Document).
type AgreementDoc struct {
	Judge     *Judge
	Agreement Agreement
}

// Kind implements output.Document.
func (AgreementDoc) Kind() string { return "judge calibration" }

// JSONValue is the judge's information, the agreement overall and per part, and whether it passes.
func (d AgreementDoc) JSONValue() (any, error) {
	a := d.Agreement
	return struct {
		*score.JudgeInfo
		N, Failed int
		ByPart    map[string]PartAgreement `json:"by_part"`
		Passes    bool                     `json:"passes"`
		Problem   string                   `json:"problem,omitempty"`
	}{d.Judge.Info(a), a.N, a.Failed, a.ByPart, a.Problem() == "", a.Problem()}, nil
}

// WriteText writes the agreement against each threshold, per part, the calls and the verdict.
func (d AgreementDoc) WriteText(w io.Writer) error {
	a := d.Agreement
	info := d.Judge.Info(a)
	fmt.Fprintf(w, "judge %s (prompt version %d): %d answers, %d unreadable\n", info.Model, info.PromptVersion, a.N, a.Failed)
	fmt.Fprintf(w, "  Spearman rho    %.3f  (>= %.2f)\n", a.Rho, MinRho)
	if a.Compared == 0 {
		fmt.Fprintf(w, "  MAE             n/a: no reply scored  (<= %.2f)\n", MaxMAE)
	} else {
		fmt.Fprintf(w, "  MAE             %.3f  (<= %.2f)\n", a.MAE, MaxMAE)
	}
	fmt.Fprintf(w, "  band agreement  %.1f%%  (>= %.0f%%)\n", 100*a.BandAgreement, 100*MinBandAgreement)
	parts := make([]string, 0, len(a.ByPart))
	for p := range a.ByPart {
		parts = append(parts, p)
	}
	slices.SortFunc(parts, func(x, y string) int {
		return slices.Index(grade.JudgedParts(), x) - slices.Index(grade.JudgedParts(), y)
	})
	for _, p := range parts {
		pa := a.ByPart[p]
		name := strings.ReplaceAll(p, "_", " ")
		if pa.Compared == 0 { // no reply of this part was scored: there is no MAE, and no band agreed
			fmt.Fprintf(w, "  %-14s  n %d, unmeasured: no reply scored\n", name, pa.N)
			continue
		}
		fmt.Fprintf(w, "  %-14s  n %d, MAE %.3f, bands %.1f%%\n", name, pa.N, pa.MAE, 100*pa.BandAgreement)
	}
	fmt.Fprintf(w, "  calls %d (%d from the cache)", info.Calls, info.CacheHits)
	if info.CostUSD != nil {
		fmt.Fprintf(w, ", cost $%.4f", *info.CostUSD)
	}
	fmt.Fprintln(w)
	if p := a.Problem(); p != "" {
		fmt.Fprintf(w, "REFUSED: %s\n", p)
	} else {
		fmt.Fprintln(w, "passes the thresholds")
	}
	return nil
}
