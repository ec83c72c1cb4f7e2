// Package openvex writes a run's VEX answers as one OpenVEX (v0.2.0) document, built with go-vex:
// a statement per case, the project as a purl product with the affected package as its
// subcomponent, the vulnerability with its aliases, the status by SPEC section 4's mapping, and
// CISA's minimum requirements checked on every document built.
package openvex

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	govex "github.com/openvex/go-vex/pkg/vex"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Options describe the document.
type Options struct {
	// RunID names the document unless ID is set: https://vulnbench.dev/openvex/RUN_ID, and of
	// a run of several repeats .../RUN_ID/repeat-N or .../RUN_ID/majority (each document of a
	// run has its own @id).
	RunID string
	ID    string
	// Author and Role are CISA's author and role (defaults: "vulnbench" and "automated assessment
	// tool"); Tooling names the subject and vulnbench's version.
	Author, Role, Tooling string
	// Now is the document's and the statements' timestamp; it must be set (no clock is read here).
	Now time.Time
	// Advisories, when set, give each statement's vulnerability its aliases and, for cases that
	// name no package, the affected packages of the case's ecosystem as subcomponents.
	Advisories *advisory.DB
	// Repeats is how many repeats the run has. With more than one, every statement states the
	// answer of repeat Repeat (default 0), or with Majority the most common answer over the
	// repeats, and says which; the document's tooling names the choice too.
	Repeats  int
	Repeat   int
	Majority bool
}

// choice says which answer of a repeated run a statement states, "" for a run of one repeat.
func (o Options) choice() string {
	switch {
	case o.Repeats <= 1 && !o.Majority:
		return ""
	case o.Majority:
		return fmt.Sprintf("the majority answer of %d repeats", max(o.Repeats, 1))
	}
	return fmt.Sprintf("repeat %d of %d", o.Repeat, o.Repeats)
}

// Build makes the document of a run: one statement per case of kind vex, from its scored verdict
// of the lowest repeat (a case without an ok verdict is under_investigation, saying why), and
// validates it with go-vex and CheckCISA.
func Build(cases []suite.Case, verdicts []verdict.Verdict, opt Options) (*govex.VEX, error) {
	if opt.Now.IsZero() {
		return nil, errors.New("openvex: Options.Now is not set")
	}
	id := opt.ID
	if id == "" {
		if opt.RunID == "" {
			return nil, errors.New("openvex: the document needs an id (Options.ID or RunID)")
		}
		id = "https://vulnbench.dev/openvex/" + url.PathEscape(opt.RunID)
		switch {
		case opt.Majority:
			id += "/majority"
		case opt.Repeats > 1:
			id += fmt.Sprintf("/repeat-%d", opt.Repeat)
		}
	}
	author, role := opt.Author, opt.Role
	if author == "" {
		author = "vulnbench"
	}
	if role == "" {
		role = "automated assessment tool"
	}
	if opt.Repeats > 1 && !opt.Majority && (opt.Repeat < 0 || opt.Repeat >= opt.Repeats) {
		return nil, fmt.Errorf("openvex: repeat %d: the run has repeats 0 to %d", opt.Repeat, opt.Repeats-1)
	}
	now := opt.Now.UTC()
	tooling := opt.Tooling
	if c := opt.choice(); c != "" {
		tooling = strings.TrimPrefix(tooling+"; ", "; ") + "statements state " + c
	}
	doc := &govex.VEX{Metadata: govex.Metadata{Context: govex.ContextLocator(), ID: id, Author: author, AuthorRole: role,
		Timestamp: &now, LastUpdated: &now, Version: 1, Tooling: tooling}}
	chosen, why := pick(verdicts, opt)
	for i := range cases {
		c := &cases[i]
		if c.Kind != suite.KindVEX {
			continue
		}
		st, err := statement(c, chosen[c.ID], now, opt.Advisories)
		if err != nil {
			return nil, err
		}
		if w := why[c.ID]; w != "" {
			st.StatusNotes += " (" + w + ")"
		} else if ch := opt.choice(); ch != "" {
			st.StatusNotes += " (" + ch + ")"
		}
		doc.Statements = append(doc.Statements, st)
	}
	if err := Validate(doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// pick chooses the verdict each case's statement states (see Options), and for majorities says
// how many repeats agreed.
func pick(verdicts []verdict.Verdict, opt Options) (map[string]verdict.Verdict, map[string]string) {
	chosen, why := map[string]verdict.Verdict{}, map[string]string{}
	switch {
	case opt.Majority:
		byCase := map[string][]verdict.Verdict{}
		for _, v := range verdicts {
			byCase[v.CaseID] = append(byCase[v.CaseID], v)
		}
		for id, vs := range byCase {
			v, n := majority(vs)
			chosen[id] = v
			why[id] = fmt.Sprintf("the majority answer of %d repeats: %d of them", max(opt.Repeats, len(vs)), n)
		}
	case opt.Repeats > 1:
		for _, v := range verdicts {
			if v.Repeat == opt.Repeat {
				chosen[v.CaseID] = v
			}
		}
	default:
		for _, v := range verdicts {
			b, seen := chosen[v.CaseID]
			if !seen || better(v, b) {
				chosen[v.CaseID] = v
			}
		}
	}
	return chosen, why
}

// majority is the verdict of the most common answer among vs (an ok verdict's VEX category;
// anything else votes "no answer"), the lowest repeat's on a tie, and how many gave it.
func majority(vs []verdict.Verdict) (verdict.Verdict, int) {
	slices.SortFunc(vs, func(a, b verdict.Verdict) int { return a.Repeat - b.Repeat })
	key := func(v verdict.Verdict) string {
		if v.Status != verdict.OK || v.VEX == nil || v.VEX.Category == "" && v.VEX.Status == "" {
			return "\x00no answer"
		}
		return v.VEX.Category + "\x00" + v.VEX.Status
	}
	votes := map[string]int{}
	for _, v := range vs {
		votes[key(v)]++
	}
	best, n := vs[0], 0
	for _, v := range vs { // in repeat order: the first to reach the top count wins a tie
		if c := votes[key(v)]; c > n {
			best, n = v, c
		}
	}
	return best, n
}

// better says whether v is the verdict to state rather than b: an ok one over others, then the
// lower repeat.
func better(v, b verdict.Verdict) bool {
	if (v.Status == verdict.OK) != (b.Status == verdict.OK) {
		return v.Status == verdict.OK
	}
	return v.Repeat < b.Repeat
}

func statement(c *suite.Case, v verdict.Verdict, now time.Time, db *advisory.DB) (govex.Statement, error) {
	eco, pkg := "", ""
	if c.VEX != nil {
		eco, pkg = c.VEX.Ecosystem, c.VEX.Package
	}
	product, err := ProjectPURL(c)
	if err != nil {
		return govex.Statement{}, fmt.Errorf("openvex: case %s: %w", c.ID, err)
	}
	p := govex.Product{Component: govex.Component{ID: product, Identifiers: map[govex.IdentifierType]string{govex.PURL: product}}}
	var subs []string
	if pkg != "" {
		subs = append(subs, PackagePURL(eco, pkg, ""))
	}
	vuln := govex.Vulnerability{Name: govex.VulnerabilityID(c.CVE)}
	if db != nil {
		as, err := db.Related(c.CVE)
		if err != nil {
			return govex.Statement{}, fmt.Errorf("openvex: case %s: %w", c.ID, err)
		}
		for _, a := range as {
			for _, al := range append([]string{a.ID}, a.Aliases...) {
				if al != c.CVE && !slices.Contains(vuln.Aliases, govex.VulnerabilityID(al)) {
					vuln.Aliases = append(vuln.Aliases, govex.VulnerabilityID(al))
				}
			}
			if vuln.Description == "" {
				vuln.Description = a.Summary
			}
			if pkg == "" {
				for _, af := range a.Affected {
					if eco == "" || af.Ecosystem == eco {
						if s := PackagePURL(af.Ecosystem, af.Package, ""); !slices.Contains(subs, s) {
							subs = append(subs, s)
						}
					}
				}
			}
		}
	}
	for _, s := range subs {
		p.Subcomponents = append(p.Subcomponents, govex.Subcomponent{Component: govex.Component{ID: s,
			Identifiers: map[govex.IdentifierType]string{govex.PURL: s}}})
	}
	st := govex.Statement{ID: "urn:vulnbench:case:" + url.PathEscape(c.ID), Vulnerability: vuln, Products: []govex.Product{p},
		Timestamp: &now, LastUpdated: &now}
	ans := v.VEX
	if v.Status != verdict.OK || ans == nil || ans.Category == "" && ans.Status == "" {
		// Not a finding of the subject: said so explicitly. go-vex refuses an impact_statement
		// on under_investigation (OpenVEX keeps it for not_affected), so the reason is in
		// status_notes.
		st.Status = govex.StatusUnderInvestigation
		st.StatusNotes = "vulnbench: " + noAnswer(v)
		return st, nil
	}
	if ans.Status == "" {
		ans = verdict.VEXAnswer(ans.Category, ans.Impact)
	}
	st.Status = govex.Status(ans.Status)
	notes := "VEX-Bench category: " + ans.Category
	switch st.Status {
	case govex.StatusNotAffected:
		// One of justification and impact_statement (the OpenVEX schema takes exactly one): an
		// impact beside a justification goes to the notes.
		st.Justification = govex.Justification(ans.Justification)
		switch {
		case st.Justification != "" && ans.Impact != "":
			notes += "; " + ans.Impact
		case st.Justification == "":
			st.ImpactStatement = ans.Impact
			if st.ImpactStatement == "" {
				st.ImpactStatement = "not exploitable here: " + ans.Category
			}
		}
	case govex.StatusAffected:
		target := "the affected dependency"
		if len(subs) > 0 {
			target = strings.Join(subs, ", ")
		}
		st.ActionStatement = fmt.Sprintf("Update %s to a version outside the affected ranges of %s, or remove it.", target, c.CVE)
		st.ActionStatementTimestamp = &now
		if ans.Impact != "" {
			notes += "; " + ans.Impact
		}
	default:
		if ans.Impact != "" {
			notes += "; " + ans.Impact
		}
	}
	st.StatusNotes = notes
	return st, nil
}

// noAnswer says why a verdict states no VEX answer.
func noAnswer(v verdict.Verdict) string {
	why := v.Reason
	switch {
	case v.CaseID == "":
		return "no verdict: the case was not judged (in this repeat)"
	case v.Status == verdict.Failed:
		if why == "" {
			why = "the answer could not be read"
		}
		return "the subject's answer failed: " + why
	case v.Status == verdict.Error:
		if why == "" {
			why = "error"
		}
		return "the subject hit an error: " + why
	}
	return "the subject gave no VEX answer (" + string(v.Status) + ")"
}

// ProjectPURL is the purl of a case's project at its commit: pkg:github/OWNER/NAME@COMMIT for
// GitHub, else pkg:generic/NAME@COMMIT?vcs_url=git+URL.
func ProjectPURL(c *suite.Case) (string, error) {
	if c.Repo == nil || c.Repo.URL == "" {
		return "", errors.New("no repo.url")
	}
	u, err := url.Parse(c.Repo.URL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("repo.url %q is not a URL", c.Repo.URL)
	}
	parts := strings.Split(strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git"), "/")
	name := parts[len(parts)-1]
	version := ""
	if c.Repo.Commit != "" {
		version = "@" + url.PathEscape(c.Repo.Commit)
	}
	if strings.EqualFold(u.Host, "github.com") && len(parts) == 2 {
		return "pkg:github/" + url.PathEscape(strings.ToLower(parts[0])) + "/" + url.PathEscape(strings.ToLower(parts[1])) + version, nil
	}
	return "pkg:generic/" + url.PathEscape(name) + version + "?vcs_url=" + url.QueryEscape("git+"+c.Repo.URL), nil
}

// PackagePURL is the purl of a package of an OSV ecosystem (version "" for none).
func PackagePURL(ecosystem, name, version string) string {
	typ := strings.ToLower(ecosystem)
	var ns, n string
	switch ecosystem {
	case "Go":
		typ = "golang"
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			ns, n = name[:i], name[i+1:]
		} else {
			n = name
		}
	case "Maven":
		ns, n, _ = strings.Cut(name, ":")
		if n == "" {
			ns, n = "", name
		}
	case "PyPI":
		typ, n = "pypi", strings.ToLower(strings.ReplaceAll(name, "_", "-"))
	case "npm":
		if strings.HasPrefix(name, "@") {
			ns, n, _ = strings.Cut(name, "/")
		} else {
			n = name
		}
	case "":
		typ, n = "generic", name
	default:
		n = name
	}
	s := "pkg:" + typ + "/"
	if ns != "" {
		var segs []string
		for _, seg := range strings.Split(ns, "/") {
			segs = append(segs, strings.ReplaceAll(url.PathEscape(seg), "@", "%40")) // npm scopes: %40babel
		}
		s += strings.Join(segs, "/") + "/"
	}
	s += url.PathEscape(n)
	if version != "" {
		s += "@" + url.PathEscape(version)
	}
	return s
}

// Validate checks a document with go-vex's Statement.Validate and CISA's minimum requirements.
func Validate(doc *govex.VEX) error {
	var errs []error
	for i := range doc.Statements {
		if err := doc.Statements[i].Validate(); err != nil {
			errs = append(errs, fmt.Errorf("statement %d (%s): %w", i+1, doc.Statements[i].Vulnerability.Name, err))
		}
	}
	errs = append(errs, CheckCISA(doc))
	return errors.Join(errs...)
}

// CheckCISA reports every field CISA's minimum requirements for VEX need and the document lacks:
// document id, version, author, role, timestamp; per statement a product, a vulnerability, a
// status, and a justification or impact statement for not_affected, an action statement for
// affected.
func CheckCISA(doc *govex.VEX) error {
	var miss []string
	if doc.ID == "" {
		miss = append(miss, "document @id")
	}
	if doc.Version < 1 {
		miss = append(miss, "document version")
	}
	if doc.Author == "" {
		miss = append(miss, "document author")
	}
	if doc.AuthorRole == "" {
		miss = append(miss, "document role")
	}
	if doc.Timestamp == nil || doc.Timestamp.IsZero() {
		miss = append(miss, "document timestamp")
	}
	if len(doc.Statements) == 0 {
		miss = append(miss, "statements")
	}
	for i, st := range doc.Statements {
		at := fmt.Sprintf("statement %d ", i+1)
		ok := false
		for _, p := range st.Products {
			ok = ok || p.ID != "" || len(p.Identifiers) > 0 || len(p.Hashes) > 0
		}
		if !ok {
			miss = append(miss, at+"product")
		}
		if st.Vulnerability.Name == "" && st.Vulnerability.ID == "" {
			miss = append(miss, at+"vulnerability")
		}
		switch {
		case st.Status == "":
			miss = append(miss, at+"status")
		case st.Status == govex.StatusNotAffected && st.Justification == "" && st.ImpactStatement == "":
			miss = append(miss, at+"justification or impact statement (not_affected)")
		case st.Status == govex.StatusAffected && st.ActionStatement == "":
			miss = append(miss, at+"action statement (affected)")
		}
		if (st.Timestamp == nil || st.Timestamp.IsZero()) && (doc.Timestamp == nil || doc.Timestamp.IsZero()) {
			miss = append(miss, at+"timestamp")
		}
	}
	if len(miss) > 0 {
		return fmt.Errorf("OpenVEX document %q misses CISA's minimum fields: %s", doc.ID, strings.Join(miss, ", "))
	}
	return nil
}
