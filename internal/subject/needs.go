package subject

import "github.com/vulnbench/vulnbench/internal/suite"

// The cases' needs, as kinds' configs declare them for run's preflight (which declares the
// interfaces it reads; these helpers keep the kinds' answers alike).

// CaseRepo reports whether c names a repository (repo.url): a kind that reads a snapshot needs
// it, at the case's commit.
func CaseRepo(c *suite.Case) bool { return c.Repo != nil && c.Repo.URL != "" }

// CaseAdvisory is the advisory id c names (its cve, else a vex case's vex.advisory), or nil.
func CaseAdvisory(c *suite.Case) []string {
	switch {
	case c.CVE != "":
		return []string{c.CVE}
	case c.VEX != nil && c.VEX.Advisory != "":
		return []string{c.VEX.Advisory}
	}
	return nil
}
