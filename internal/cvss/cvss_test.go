package cvss_test

import (
	"math"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/cvss"
	"github.com/vulnbench/vulnbench/internal/suite/appsec"
)

// firstScore computes a CVSS 3.1 base score from the FIRST specification's formulas (section 7.1
// and Appendix A's Roundup), independently of the library.
func firstScore(t *testing.T, vector string) float64 {
	t.Helper()
	m := map[string]string{}
	for _, kv := range strings.Split(strings.TrimPrefix(vector, "CVSS:3.1/"), "/") {
		k, v, _ := strings.Cut(kv, ":")
		m[k] = v
	}
	changed := m["S"] == "C"
	av := map[string]float64{"N": 0.85, "A": 0.62, "L": 0.55, "P": 0.2}[m["AV"]]
	ac := map[string]float64{"L": 0.77, "H": 0.44}[m["AC"]]
	pr := map[string]float64{"N": 0.85, "L": 0.62, "H": 0.27}[m["PR"]]
	if changed {
		pr = map[string]float64{"N": 0.85, "L": 0.68, "H": 0.5}[m["PR"]]
	}
	ui := map[string]float64{"N": 0.85, "R": 0.62}[m["UI"]]
	cia := map[string]float64{"H": 0.56, "L": 0.22, "N": 0}
	iss := 1 - (1-cia[m["C"]])*(1-cia[m["I"]])*(1-cia[m["A"]])
	impact := 6.42 * iss
	if changed {
		impact = 7.52*(iss-0.029) - 3.25*math.Pow(iss-0.02, 15)
	}
	expl := 8.22 * av * ac * pr * ui
	roundup := func(x float64) float64 {
		i := int64(math.Round(x * 100000))
		if i%10000 == 0 {
			return float64(i) / 100000
		}
		return (math.Floor(float64(i)/10000) + 1) / 10
	}
	switch {
	case impact <= 0:
		return 0
	case changed:
		return roundup(math.Min(1.08*(impact+expl), 10))
	default:
		return roundup(math.Min(impact+expl, 10))
	}
}

func TestScore(t *testing.T) {
	for _, tc := range []struct {
		vector   string
		want     float64
		severity string
	}{
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8, "Critical"},
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", 6.1, "Medium"},
		{"CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", 7.8, "High"},
		{"CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N", 5.9, "Medium"},
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H", 10.0, "Critical"},
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N", 7.5, "High"},
		{"CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", 8.8, "High"},
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H", 7.5, "High"},
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N", 5.3, "Medium"},
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:N/A:N", 8.6, "High"},
		{"CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N", 6.4, "Medium"},
		{"CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N", 1.6, "Low"},
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N", 0, "None"},
	} {
		got, err := cvss.Score(tc.vector)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("Score(%s) = %v, want %v", tc.vector, got, tc.want)
		}
		if indep := firstScore(t, tc.vector); indep != tc.want {
			t.Errorf("FIRST formulas give %v for %s, want %v", indep, tc.vector, tc.want)
		}
		if s := cvss.Severity(got); s != tc.severity {
			t.Errorf("Severity(%v) = %s, want %s", got, s, tc.severity)
		}
	}
	if _, err := cvss.Score("CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"); err == nil {
		t.Error("a CVSS 3.0 vector was accepted")
	}
}

// TestCatalogScoresMatchFIRST cross-checks the library against the formulas on every catalog
// vector and its enterprise adjustment.
func TestCatalogScoresMatchFIRST(t *testing.T) {
	cat, err := appsec.LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cat.Archetypes {
		for _, foothold := range []bool{false, true} {
			v, err := cvss.AdjustVector(a.CVSS, foothold)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cvss.Score(v)
			if err != nil {
				t.Fatal(err)
			}
			if want := firstScore(t, v); got != want {
				t.Errorf("%s %s: library %v, formulas %v", a.ID, v, got, want)
			}
		}
	}
}

func TestSeverityBands(t *testing.T) {
	for _, tc := range []struct {
		score float64
		want  string
	}{{0, "None"}, {0.1, "Low"}, {3.9, "Low"}, {4.0, "Medium"}, {6.9, "Medium"}, {7.0, "High"}, {8.9, "High"}, {9.0, "Critical"}, {10, "Critical"}} {
		if got := cvss.Severity(tc.score); got != tc.want {
			t.Errorf("Severity(%v) = %s, want %s", tc.score, got, tc.want)
		}
	}
}

func TestAdjustVector(t *testing.T) {
	for _, tc := range []struct {
		in       string
		foothold bool
		want     string
	}{
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", false, "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"},
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", true, "CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H"},
		{"CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:N/A:N", true, "CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:N/A:N"},
		{"CVSS:3.1/AV:N/AC:H/PR:H/UI:N/S:U/C:H/I:N/A:N", true, "CVSS:3.1/AV:N/AC:H/PR:H/UI:R/S:U/C:H/I:N/A:N"},
	} {
		got, err := cvss.AdjustVector(tc.in, tc.foothold)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("AdjustVector(%s, %v) = %s, want %s", tc.in, tc.foothold, got, tc.want)
		}
	}
	if _, err := cvss.AdjustVector("CVSS:3.1/AV:N", true); err == nil {
		t.Error("AdjustVector accepted an incomplete vector")
	}
	// 9.8 becomes 8.8 once a foothold (PR:L) is needed.
	if s, _ := cvss.Score("CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H"); s != 8.8 {
		t.Errorf("enterprise-adjusted 9.8 scores %v, want 8.8", s)
	}
}
