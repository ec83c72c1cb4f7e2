// Command gen writes a synthetic suite of paired function cases and, optionally, predictions for
// it: inputs for bench/run.sh. Deterministic for a given seed.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func main() {
	n := flag.Int("cases", 100000, "number of cases (pairs are cases/2)")
	out := flag.String("suite", "", "suite file to write")
	preds := flag.String("predictions", "", "predictions file to write (optional)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: --suite is required")
		os.Exit(2)
	}
	if err := run(*n, *out, *preds, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

var cwes = []string{"CWE-787", "CWE-125", "CWE-476", "CWE-416", "CWE-190", "CWE-78", "CWE-134", "CWE-22", "CWE-20", "CWE-401"}

func run(n int, out, preds string, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 7))
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	w := suite.NewWriter(f)
	var pw *bufio.Writer
	var enc *json.Encoder
	if preds != "" {
		pf, err := os.Create(preds)
		if err != nil {
			return err
		}
		defer pf.Close()
		pw = bufio.NewWriterSize(pf, 1<<16)
		enc = json.NewEncoder(pw)
	}
	for i := 0; i < n; i++ {
		label := suite.Vul
		if i%2 == 1 {
			label = suite.Ben
		}
		pair := i / 2
		c := &suite.Case{
			ID: fmt.Sprintf("syn-%07d", i), Kind: suite.KindFunction, Label: label, Pair: fmt.Sprintf("p%07d", pair),
			Project: fmt.Sprintf("proj%03d", pair%500), Language: "c", CWE: []string{cwes[pair%len(cwes)]},
			Code: fmt.Sprintf("int f%d(char *s, int n) {\n  char b[16];\n  if (n %s 16) return -1;\n  memcpy(b, s, n);\n  return b[0];\n}\n", pair, map[suite.Label]string{suite.Vul: ">", suite.Ben: ">="}[label]),
		}
		if err := w.Write(c); err != nil {
			return err
		}
		if enc != nil {
			s := rng.Float64()
			if label == suite.Vul {
				s = s*0.7 + 0.3
			} else {
				s *= 0.8
			}
			l := suite.Ben
			if s >= 0.5 {
				l = suite.Vul
			}
			v := verdict.Verdict{CaseID: c.ID, Status: verdict.OK, Label: l, Score: verdict.Float(s)}
			if i%97 == 0 {
				v = verdict.Verdict{CaseID: c.ID, Status: verdict.Failed, Reason: "unparseable"}
			}
			if err := enc.Encode(&v); err != nil {
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if pw != nil {
		return pw.Flush()
	}
	return nil
}
