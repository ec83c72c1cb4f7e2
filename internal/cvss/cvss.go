// Package cvss scores CVSS 3.1 base vectors for AppSecBench: the base score (FIRST's formulas,
// through github.com/pandatix/go-cvss), FIRST's severity bands, and the one adjustment the
// generator makes to a vector (AdjustVector). It depends on no other vulnbench package.
package cvss

import (
	"fmt"

	gocvss31 "github.com/pandatix/go-cvss/31"
)

// Score returns the CVSS 3.1 base score of a vector such as
// "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", computed with the FIRST 3.1 formulas by
// github.com/pandatix/go-cvss.
func Score(vector string) (float64, error) {
	v, err := gocvss31.ParseVector(vector)
	if err != nil {
		return 0, fmt.Errorf("cvss vector %q: %w", vector, err)
	}
	return v.BaseScore(), nil
}

// Severity names.
const (
	SeverityNone     = "None"
	SeverityLow      = "Low"
	SeverityMedium   = "Medium"
	SeverityHigh     = "High"
	SeverityCritical = "Critical"
)

// Severities returns the severity bands from lowest to highest.
func Severities() []string {
	return []string{SeverityNone, SeverityLow, SeverityMedium, SeverityHigh, SeverityCritical}
}

// Severity is FIRST's qualitative rating of a CVSS 3.1 score: None 0.0, Low 0.1-3.9,
// Medium 4.0-6.9, High 7.0-8.9, Critical 9.0-10.0.
func Severity(score float64) string {
	switch {
	case score >= 9.0:
		return SeverityCritical
	case score >= 7.0:
		return SeverityHigh
	case score >= 4.0:
		return SeverityMedium
	case score >= 0.1:
		return SeverityLow
	default:
		return SeverityNone
	}
}

// AdjustVector returns vector in its canonical form and, when foothold is set, adjusted for an
// attacker who first needs a foothold: Privileges Required goes up one step (N -> L, L -> H);
// when it is already H, User Interaction becomes Required instead. AppSecBench sets foothold for
// real-world-enterprise records (seed 002: multi-component, "requires foothold/user interaction;
// CVSS nudged to reflect PR/UI preconditions"); its other levels describe how hard the code is to
// read, not how hard the weakness is to exploit, and keep the vector.
func AdjustVector(vector string, foothold bool) (string, error) {
	v, err := gocvss31.ParseVector(vector)
	if err != nil {
		return "", fmt.Errorf("cvss vector %q: %w", vector, err)
	}
	if !foothold {
		return v.Vector(), nil
	}
	pr, err := v.Get("PR")
	if err != nil {
		return "", fmt.Errorf("cvss vector %q: %w", vector, err)
	}
	switch pr {
	case "N":
		err = v.Set("PR", "L")
	case "L":
		err = v.Set("PR", "H")
	default:
		err = v.Set("UI", "R")
	}
	if err != nil {
		return "", fmt.Errorf("cvss vector %q: %w", vector, err)
	}
	return v.Vector(), nil
}
