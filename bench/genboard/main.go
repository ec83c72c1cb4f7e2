// Command genboard writes the inputs of bench/board.sh that no command makes: a suite of jit
// pairs (their repositories are never opened: the baselines do not read them), and predictions
// for an AppSecBench suite that answer every vulnerable case with a full AppSec answer whose
// proposed fix is the record's own secure code, so that run checks and stores a fix for each.
// Deterministic.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func main() {
	jit := flag.String("jit", "", "jit suite to write")
	n := flag.Int("pairs", 40, "jit pairs")
	appsec := flag.String("appsec", "", "AppSecBench suite to answer")
	preds := flag.String("predictions", "", "predictions file to write for --appsec")
	flag.Parse()
	if err := run(*jit, *n, *appsec, *preds); err != nil {
		fmt.Fprintln(os.Stderr, "genboard:", err)
		os.Exit(1)
	}
}

func run(jit string, n int, appsec, preds string) error {
	if jit != "" {
		var cs []suite.Case
		for i := 0; i < n; i++ {
			for _, l := range []suite.Label{suite.Vul, suite.Ben} {
				cs = append(cs, suite.Case{ID: fmt.Sprintf("j%03d-%s", i, l), Kind: suite.KindJIT, Label: l, Pair: fmt.Sprintf("q%03d", i),
					Language: "c", Project: fmt.Sprintf("proj%d", i%12), CWE: []string{"CWE-787"}, Code: fmt.Sprintf("int g%d(void){return %d;}", i, len(l)),
					Repo:   &suite.Repo{URL: fmt.Sprintf("https://github.com/acme/j%d", i%12), Commit: fmt.Sprintf("%040d", i)},
					Target: &suite.Target{File: "src/g.c", Function: fmt.Sprintf("g%d", i), Line: 10, EndLine: 20}})
			}
		}
		if err := write(jit, cs, func(c suite.Case) any { return c }); err != nil {
			return err
		}
	}
	if appsec == "" {
		return nil
	}
	f, err := os.Open(appsec)
	if err != nil {
		return err
	}
	defer f.Close()
	var cases []suite.Case
	secure := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var c suite.Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return err
		}
		cases = append(cases, c)
		if c.Label == suite.Ben {
			secure[c.Pair] = c.Code
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return write(preds, cases, func(c suite.Case) any {
		v := verdict.Verdict{CaseID: c.ID, Status: verdict.OK, Label: c.Label, CWE: c.CWE,
			Usage: verdict.Usage{InputTokens: 1800, OutputTokens: 450, CostUSD: verdict.Float(0.004)}}
		if c.Label == suite.Vul {
			owasp, _ := c.AppSec["expected_owasp"].(string)
			sev, _ := c.AppSec["expected_severity"].(string)
			vec, _ := c.AppSec["expected_cvss"].(string)
			v.AppSec = &verdict.AppSec{OWASP: owasp, Severity: sev, CVSSVector: vec, Exploit: "as the record's scenario", Fix: "use the secure version", FixCode: secure[c.Pair]}
		}
		return v
	})
}

func write[T any](path string, xs []T, line func(T) any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, x := range xs {
		if err := enc.Encode(line(x)); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
