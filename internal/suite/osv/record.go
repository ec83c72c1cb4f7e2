package osv

import (
	"fmt"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/advisory"
)

// Record is what a build reads from one OSV record.
type Record struct {
	ID     string
	Source string // FILE or ZIP:ENTRY
	// Published is the record's publication date; zero when the record has none or a
	// placeholder (the Go database's 0001-01-01).
	Published time.Time
	Withdrawn bool
	Fixes     []FixRef // candidate fix commits, in the record's order
	Symbols   []Symbol // the Go database's vulnerable symbols
	CrashType string   // OSS-Fuzz's
	Frames    []string // OSS-Fuzz's crash state, innermost first
	CVE       string
	CWE       []string
	CWESource string // "database_specific" or "crash type"
	// Intro is OSS-Fuzz's bisected introducing commit ("" when the record has none or "0"),
	// IntroRange its introduced_range when bisection stopped at one ("A:B").
	Intro, IntroRange string
	IntroRepo         string // the repository of the GIT range Intro is from
	// GitRange says the record has a GIT range (OSS-Fuzz's records do).
	GitRange bool
	// Affected are the record's packages with their version ranges: a commit a WEB reference
	// names is no fix when a release of an affected version holds it.
	Affected []advisory.Affected
}

// FixRef is one fix commit a record names.
type FixRef struct {
	Repo   string // the repository URL
	Commit string
	// From is where the record names it: "GIT range", "FIX reference", or "WEB reference",
	// "PACKAGE reference", "ADVISORY reference" (GitHub's advisories mark their fix commits WEB).
	From string
	URL  string // the reference's URL; "" for a GIT range
	// RangeFrom is set when the commit ends a fixed_range (the fix is one of RangeFrom..Commit):
	// RangeFrom is excluded, "unknown" when bisection did not say.
	RangeFrom string
}

// Symbol is one vulnerable symbol of the Go database: a function or Type.Method in the
// package at Path, of the module Module.
type Symbol struct {
	Module, Path, Name string
}

func (s Symbol) String() string { return s.Path + "." + s.Name }

// From GIT ranges and FIX references; other references are "TYPE reference".
const (
	fromGit = "GIT range"
	fromFix = "FIX reference"
)

// candidateRefs are the reference types whose commit URLs are fix candidates besides FIX, in
// the order they are tried: a commit they name is a fix only once checked (checked).
var candidateRefs = []string{"WEB", "PACKAGE", "ADVISORY"}

// checked reports whether a fix reference must be checked against its repository before it is
// taken: one the record does not mark FIX, nor a GIT range's fixed event.
func (f FixRef) checked() bool { return f.From != fromGit && f.From != fromFix }

// mirrors are repositories whose URLs have one path element, which the --repos layout cannot
// name, with the official mirror that it can.
var mirrors = map[string]string{"go.googlesource.com": "https://github.com/golang/"}

// canonicalRepo is the URL cases name for a repository: the record's, or its mirror's.
func canonicalRepo(u string) string {
	rest, ok := strings.CutPrefix(u, "https://")
	if !ok {
		return u
	}
	host, p, _ := strings.Cut(strings.TrimSuffix(strings.TrimRight(rest, "/"), ".git"), "/")
	if m, ok := mirrors[host]; ok && p != "" && !strings.Contains(p, "/") {
		return m + p
	}
	return u
}

// readRecord takes what a build needs from a.
func readRecord(a *advisory.Advisory) *Record {
	r := &Record{ID: a.ID, Source: a.Source, Withdrawn: a.IsWithdrawn(), Affected: a.Affected}
	if a.Published.Year() > 1 {
		r.Published = a.Published
	}
	for _, al := range append([]string{a.ID}, a.Aliases...) {
		if strings.HasPrefix(strings.ToUpper(al), "CVE-") {
			r.CVE = strings.ToUpper(al)
			break
		}
	}
	r.CrashType, r.Frames = advisory.CrashInfo(a.Details)
	if len(a.CWEs) > 0 {
		r.CWE, r.CWESource = a.CWEs, "database_specific"
	} else if c := CWEOfCrash(r.CrashType); c != "" {
		r.CWE, r.CWESource = []string{c}, "crash type"
	}
	for _, af := range a.Affected {
		for _, imp := range af.Imports {
			for _, s := range imp.Symbols {
				r.Symbols = append(r.Symbols, Symbol{Module: af.Package, Path: imp.Path, Name: s})
			}
		}
		for _, rg := range af.Ranges {
			if rg.Type != "GIT" || rg.Repo == "" {
				continue
			}
			r.GitRange = true
			for _, e := range rg.Events {
				switch {
				case e.Introduced != "" && e.Introduced != "0" && r.Intro == "":
					r.Intro, r.IntroRange, r.IntroRepo = e.Introduced, af.IntroducedRange, canonicalRepo(rg.Repo)
				case e.Fixed != "":
					f := FixRef{Repo: canonicalRepo(rg.Repo), Commit: e.Fixed, From: fromGit}
					if from, to, ok := strings.Cut(af.FixedRange, ":"); ok && to != "" && samePrefix(to, e.Fixed) {
						f.RangeFrom = from
					}
					r.Fixes = append(r.Fixes, f)
				}
			}
		}
	}
	for _, typ := range append([]string{"FIX"}, candidateRefs...) {
		for _, ref := range a.Refs {
			if ref.Type != typ {
				continue
			}
			c, ok := advisory.ParseCommitURL(ref.URL)
			if !ok || r.names(canonicalRepo(c.Repo), c.Commit) {
				continue
			}
			from := fromFix
			if typ != "FIX" {
				from = typ + " reference"
			}
			r.Fixes = append(r.Fixes, FixRef{Repo: canonicalRepo(c.Repo), Commit: c.Commit, From: from, URL: ref.URL})
		}
	}
	return r
}

// names reports whether the record names commit of repo as a fix already.
func (r *Record) names(repo, commit string) bool {
	for _, f := range r.Fixes {
		if f.Repo == repo && samePrefix(f.Commit, commit) {
			return true
		}
	}
	return false
}

// samePrefix reports whether two commit ids, full or abbreviated, name the same commit.
func samePrefix(a, b string) bool {
	n := min(len(a), len(b))
	return n >= 7 && strings.EqualFold(a[:n], b[:n])
}

// The date sources a case names in meta.date_source.
const (
	dateFromPublished = "published"
	dateFromFix       = "fix commit"
)

// date is the case date of a record fixed at a commit of date commitDate, by rule: the earlier
// of the two, the record's publication (the commit's when it has none) or the commit's.
func (r *Record) date(commitDate time.Time, rule DateRule) (time.Time, string) {
	switch {
	case r.Published.IsZero() || rule == DateFix:
		return commitDate, dateFromFix
	case rule == DatePublished || !commitDate.Before(r.Published):
		return r.Published, dateFromPublished
	}
	return commitDate, dateFromFix
}

// hint says what narrows the record's changed functions.
func (r *Record) hint() string {
	switch {
	case len(r.Symbols) > 0:
		return narrowSymbols
	case len(r.Frames) > 0:
		return narrowCrash
	}
	return narrowMaxFuncs
}

// The narrowings.
const (
	narrowSymbols  = "symbols"
	narrowCrash    = "crash state"
	narrowMaxFuncs = "max-funcs"
)

func (r *Record) noFix() error {
	return &dropError{reason: ReasonNoFix, detail: fmt.Sprintf("%s names no GIT range with a fixed commit and no FIX, WEB, PACKAGE or ADVISORY reference to a commit URL", r.ID)}
}
