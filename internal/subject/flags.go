package subject

// AdvisoriesFlag is --advisories, read by every kind that looks CVEs up offline (sca,
// govulncheck, vex-agent); they share it, so it is declared once, here.
func AdvisoriesFlag() Flag {
	return Flag{Name: "advisories", Default: "", Path: true,
		Usage: "OSV records for vex cases: a directory (GitHub Advisory Database, Go vulndb, any .json files) or an osv.dev all.zip"}
}
