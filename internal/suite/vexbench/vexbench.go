// Package vexbench imports VEX-Bench's public task file (vex_bench.jsonl) as vulnbench vex cases:
// one case per task, a project at a commit and a CVE in one of its dependencies.
package vexbench

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"

	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/textnorm"
)

// Version is bumped whenever the cases written for the same input may change.
const Version = "1"

// task is one line of vex_bench.jsonl.
type task struct {
	TaskID      string `json:"task_id"`
	RepoURL     string `json:"repo_url"`
	CommitSHA   string `json:"commit_sha"`
	CVEID       string `json:"cve_id"`
	GroundTruth string `json:"ground_truth"`
	Category    string `json:"ground_truth_category"`
	Metadata    struct {
		Language string `json:"language"`
		PRURL    string `json:"pr_url"`
	} `json:"metadata"`
}

// BadPRURL is a task kept although its pr_url is not a pull request URL; the case leaves it out.
type BadPRURL struct {
	Line   int    `json:"line"`
	TaskID string `json:"task_id"`
	PRURL  string `json:"pr_url"`
}

// Report says what Import read and wrote.
type Report struct {
	Rows, Cases, Vul, Ben int
	BadPRURLs             []BadPRURL
}

var (
	commitRe = regexp.MustCompile(`^[0-9a-f]{7,64}$`)
	vulnIDRe = regexp.MustCompile(`^(CVE-\d{4}-\d{4,}|GHSA(-[23456789cfghjmpqrvwx]{4}){3}|GO-\d{4}-\d{4,})$`)
	prURLRe  = regexp.MustCompile(`^https://[^/\s]+/[^/\s]+/[^/\s]+/pull/\d+$`)
)

// ecosystem is the OSV ecosystem of a task language's dependencies ("" when unknown).
func ecosystem(lang string) string {
	switch lang {
	case "go":
		return "Go"
	case "java":
		return "Maven"
	case "python":
		return "PyPI"
	}
	return ""
}

// Import reads VEX-Bench tasks from r (named file in errors) and writes one vex case per task
// to w, in file order. Every malformed line is a problem (*suite.LineError, FILE:LINE: msg) and
// the caller must discard what was written when there are any; a malformed pr_url is only
// reported. The error return is for read and write failures.
func Import(r io.Reader, file string, rd *lineerr.Reading, w *suite.Writer) (Report, []error, error) {
	var rep Report
	probs := &suite.Problems{File: file}
	seen := map[string]int{}
	refused, err := suite.Records(r, file, rd, probs, func(b []byte, line int) error {
		rep.Rows++
		c, bad, errs := parse(b)
		if first, dup := seen[c.ID]; dup && c.ID != "" {
			errs = append(errs, fmt.Errorf("task_id %q repeats line %d", c.ID, first))
		} else if c.ID != "" {
			seen[c.ID] = line
		}
		if len(errs) > 0 {
			for _, e := range errs {
				probs.Add(&suite.LineError{File: file, Line: line, Err: e})
			}
			return nil
		}
		if bad != "" {
			rep.BadPRURLs = append(rep.BadPRURLs, BadPRURL{Line: line, TaskID: c.ID, PRURL: bad})
		}
		if err := c.Check(); err != nil {
			return &suite.LineError{File: file, Line: line, Err: err}
		}
		if probs.Len() > 0 {
			return nil // nothing will be kept: only look for more problems
		}
		if err := w.Write(c); err != nil {
			return fmt.Errorf("write case %s: %w", c.ID, err)
		}
		rep.Cases++
		if c.Label == suite.Vul {
			rep.Vul++
		} else {
			rep.Ben++
		}
		return nil
	})
	rep.Rows += refused
	if err != nil {
		return rep, nil, err
	}
	if probs.Len() > 0 {
		return rep, probs.List(), nil
	}
	return rep, nil, nil
}

// parse turns one line into a case, with the malformed pr_url (if any) and every problem found.
func parse(b []byte) (*suite.Case, string, []error) {
	var t task
	if err := json.Unmarshal(b, &t); err != nil {
		return &suite.Case{}, "", []error{suite.DescribeJSONError(b, err, "task")}
	}
	if err := suite.CheckKeys(b); err != nil {
		return &suite.Case{}, "", []error{err}
	}
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if t.TaskID == "" {
		bad(`missing field "task_id"`)
	}
	owner, name, err := repoName(t.RepoURL)
	if err != nil {
		bad(`field "repo_url": %v`, err)
	}
	if !commitRe.MatchString(t.CommitSHA) {
		bad(`field "commit_sha": %q is not a lower-case hex commit id`, textnorm.Clip(t.CommitSHA, 83))
	}
	if !vulnIDRe.MatchString(t.CVEID) {
		bad(`field "cve_id": %q is not a CVE, GHSA or GO id`, textnorm.Clip(t.CVEID, 83))
	}
	if !suite.ValidVEXCategory(t.Category) {
		bad(`field "ground_truth_category": %q is not one of %s`, textnorm.Clip(t.Category, 83), strings.Join(suite.VEXCategories, ", "))
	}
	var label suite.Label
	switch t.GroundTruth {
	case "exploitable":
		label = suite.Vul
	case "not_exploitable":
		label = suite.Ben
	default:
		bad(`field "ground_truth": %q is not exploitable or not_exploitable`, textnorm.Clip(t.GroundTruth, 83))
	}
	if label != "" && suite.ValidVEXCategory(t.Category) && suite.VEXStatus(t.Category) != t.GroundTruth {
		bad(`ground_truth %q contradicts ground_truth_category %q (only "vulnerable" is exploitable)`, t.GroundTruth, t.Category)
	}
	lang := t.Metadata.Language
	if lang == "" {
		bad(`missing field "metadata.language"`)
	}
	c := &suite.Case{
		ID: t.TaskID, Kind: suite.KindVEX, Label: label, Project: owner + "/" + name, Commit: t.CommitSHA,
		Language: lang, CVE: t.CVEID,
		Repo:   &suite.Repo{URL: t.RepoURL, Commit: t.CommitSHA},
		VEX:    &suite.VEX{Category: t.Category, Ecosystem: ecosystem(lang)},
		Source: map[string]any{"task_id": t.TaskID},
	}
	var badPR string
	switch {
	case t.Metadata.PRURL == "":
	case prURLRe.MatchString(t.Metadata.PRURL):
		c.Source["pr_url"] = t.Metadata.PRURL
	default:
		badPR = t.Metadata.PRURL
	}
	return c, badPR, errs
}

// repoName checks that u is https://HOST/OWNER/NAME and returns OWNER and NAME.
func repoName(u string) (string, string, error) {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "https" || p.Host == "" || p.RawQuery != "" || p.Fragment != "" {
		return "", "", fmt.Errorf("%q is not https://HOST/OWNER/NAME", textnorm.Clip(u, 83))
	}
	parts := strings.Split(strings.TrimSuffix(strings.Trim(p.Path, "/"), ".git"), "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" || parts[0] == ".." || parts[1] == ".." {
		return "", "", fmt.Errorf("%q is not https://HOST/OWNER/NAME", textnorm.Clip(u, 83))
	}
	return parts[0], parts[1], nil
}
