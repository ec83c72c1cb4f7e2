package html

import (
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/report"
	"github.com/vulnbench/vulnbench/internal/score"
)

func appsecFigures(parts map[string]float64, records float64) *report.Figures {
	f := &report.Figures{}
	if parts != nil {
		a := &score.AppSecOf[score.Stat, score.Stat]{Records: score.Stat{Mean: records}, Parts: map[string]score.Stat{}}
		for k, v := range parts {
			a.Parts[k] = score.Stat{Mean: v}
		}
		f.AppSec = a
	}
	return f
}

// The rubric-parts plot appears for the runs graded on AppSecBench records only, names each of
// them in its legend, and says when a part was not graded for some run.
func TestAppSecPlot(t *testing.T) {
	auto := map[string]float64{"detection": 0.9, "cwe": 0.5, "owasp": 0.4, "severity": 0.25, "false_positive_avoidance": 1}
	judged := map[string]float64{"detection": 1, "cwe": 1, "owasp": 1, "severity": 1, "exploit": 0.7, "fix": 0.6,
		"code_quality": 0.5, "explanation": 0.8, "false_positive_avoidance": 0}
	for _, tc := range []struct {
		name     string
		figs     []*report.Figures
		plot     bool
		legend   []string
		absent   []string
		ungraded bool
	}{
		{"no appsec run", []*report.Figures{appsecFigures(nil, 0), appsecFigures(nil, 0)}, false, nil, nil, false},
		{"graded nothing", []*report.Figures{appsecFigures(auto, 0)}, false, nil, nil, false},
		{"automatic parts only", []*report.Figures{appsecFigures(auto, 472), appsecFigures(nil, 0)}, true, []string{"run-a"}, []string{"run-b"}, true},
		{"all parts", []*report.Figures{appsecFigures(judged, 472)}, true, []string{"run-a"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &content{}
			if err := c.addAppSecPlot([]string{"run-a", "run-b"}[:len(tc.figs)], tc.figs); err != nil {
				t.Fatal(err)
			}
			if got := len(c.Plots) == 1; got != tc.plot {
				t.Fatalf("plot drawn: %v, want %v (%d plots)", got, tc.plot, len(c.Plots))
			}
			if !tc.plot {
				return
			}
			fig := c.Plots[0]
			svg := string(fig.SVG)
			for _, w := range append(tc.legend, "detection", "false_positive_avoidance", "explanation") {
				if !strings.Contains(svg, ">"+w+"<") {
					t.Errorf("the plot does not show %q", w)
				}
			}
			for _, w := range tc.absent {
				if strings.Contains(svg, ">"+w+"<") {
					t.Errorf("the plot shows %q, which was not graded on AppSecBench", w)
				}
			}
			if got := strings.Contains(fig.Note, "not graded"); got != tc.ungraded {
				t.Errorf("note says a part was not graded: %v, want %v: %q", got, tc.ungraded, fig.Note)
			}
		})
	}
}
