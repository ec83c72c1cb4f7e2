// Command gencurate writes synthetic raw vulnerability-fix data for 'vulnbench suite curate' at
// PrimeVul's scale: by default 235,000 function occurrences (about 600 MB of JSONL) in commits of
// 1-30 functions, with C-like function texts of varying length, a few changed functions per
// commit, NVD descriptions that name a function or a file, and commits copied across projects
// (forks), so that every rule of the pipeline has work to do.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/vulnbench/vulnbench/internal/suite/curate"
	"math/rand/v2"
	"os"
	"strings"
	"time"
)

var (
	types = []string{"int", "size_t", "char *", "void", "unsigned int", "struct buf *", "uint8_t", "long"}
	verbs = []string{"parse", "read", "decode", "copy", "alloc", "free", "init", "get", "set", "handle", "process", "scan", "load", "emit", "check"}
	nouns = []string{"hdr", "packet", "frame", "buf", "chunk", "node", "entry", "table", "string", "token", "image", "record", "block", "stream", "ctx"}
	cwes  = []string{"CWE-787", "CWE-125", "CWE-476", "CWE-416", "CWE-190", "CWE-20", "CWE-119", "CWE-400", "CWE-703", "CWE-835"}
)

func main() {
	n := flag.Int("n", 235000, "function occurrences to write")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("out", "raw.jsonl", "output file")
	flag.Parse()
	if err := run(*n, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gencurate:", err)
		os.Exit(1)
	}
}

func funcText(rng *rand.Rand, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "static %s %s(struct ctx *c, const uint8_t *p, size_t len)\n{\n", types[rng.IntN(len(types))], name)
	lines := 4 + rng.IntN(14) + rng.IntN(28)*rng.IntN(3)
	for i := 0; i < lines; i++ {
		ind := strings.Repeat("\t", 1+rng.IntN(2))
		switch rng.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "%sif (len < %d || p[%d] != 0x%02x)\n%s\treturn -%d;\n", ind, rng.IntN(64), rng.IntN(16), rng.IntN(256), ind, 1+rng.IntN(30))
		case 1:
			fmt.Fprintf(&b, "%sfor (size_t i = 0; i < len; i++) {\n%s\tc->%s[i] = p[i] ^ %d;\n%s}\n", ind, ind, nouns[rng.IntN(len(nouns))], rng.IntN(256), ind)
		case 2:
			fmt.Fprintf(&b, "%smemcpy(c->%s, p + %d, len - %d);\n", ind, nouns[rng.IntN(len(nouns))], rng.IntN(32), rng.IntN(32))
		case 3:
			fmt.Fprintf(&b, "%s%s_%s(c, p, len); /* %s */\n", ind, verbs[rng.IntN(len(verbs))], nouns[rng.IntN(len(nouns))], nouns[rng.IntN(len(nouns))])
		case 4:
			fmt.Fprintf(&b, "%sc->%s_len = le32(p + %d) & 0x%x;\n", ind, nouns[rng.IntN(len(nouns))], rng.IntN(64), rng.IntN(1<<16))
		default:
			fmt.Fprintf(&b, "%sint r%d = %s_%s(c, %d);\n", ind, i, verbs[rng.IntN(len(verbs))], nouns[rng.IntN(len(nouns))], rng.IntN(1000))
		}
	}
	b.WriteString("\treturn 0;\n}\n")
	return b.String()
}

// patch makes a small fix: a bounds check inserted and one line changed.
func patch(rng *rand.Rand, s string) string {
	lines := strings.Split(s, "\n")
	i := 2 + rng.IntN(max(1, len(lines)-4))
	check := fmt.Sprintf("\tif (len > sizeof(c->%s))\n\t\treturn -EINVAL;", nouns[rng.IntN(len(nouns))])
	lines = append(lines[:i], append([]string{check}, lines[i:]...)...)
	if rng.IntN(10) == 0 { // a rewrite: far from its vulnerable version
		return funcText(rng, "rewritten") + s[:len(s)/5]
	}
	return strings.Join(lines, "\n")
}

func run(n int, seed uint64, path string) error {
	rng := rand.New(rand.NewPCG(seed, 42))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	start := time.Date(2005, 1, 1, 0, 0, 0, 0, time.UTC)
	var prev []curate.Raw // the last commit, copied by forks
	written, commitNo := 0, 0
	for written < n {
		commitNo++
		date := start.Add(time.Duration(rng.Int64N(int64(18 * 365 * 24 * time.Hour))))
		project := fmt.Sprintf("proj%03d", rng.IntN(750))
		cid := fmt.Sprintf("%040x", rng.Uint64())
		var rows []curate.Raw
		if len(prev) > 0 && rng.IntN(20) == 0 { // a fork repeats another project's fix
			for _, r := range prev {
				r.Project, r.CommitID, r.CommitDate = project, cid, date.Add(24*time.Hour).Format(time.RFC3339)
				rows = append(rows, r)
			}
		} else {
			k := 1 + rng.IntN(30)
			if rng.IntN(3) == 0 {
				k = 1 + rng.IntN(3)
			}
			changed := 1 + rng.IntN(min(k, 3))
			cwe := []string{cwes[rng.IntN(len(cwes))]}
			cve := fmt.Sprintf("CVE-%d-%05d", date.Year(), rng.IntN(100000))
			files := []string{fmt.Sprintf("src/%s_%d.c", nouns[rng.IntN(len(nouns))], rng.IntN(50)), fmt.Sprintf("lib/%s.c", verbs[rng.IntN(len(verbs))])}
			names := make([]string, k)
			for i := range names {
				names[i] = fmt.Sprintf("%s_%s_%d", verbs[rng.IntN(len(verbs))], nouns[rng.IntN(len(nouns))], rng.IntN(100000))
			}
			var desc string
			switch rng.IntN(3) {
			case 0:
				desc = fmt.Sprintf("Buffer overflow in the %s function in %s in %s allows remote attackers to cause a denial of service via a crafted packet.", names[0], files[0], project)
			case 1:
				desc = fmt.Sprintf("%s in %s before 2.%d allows attackers to read out of bounds memory via crafted input.", files[0], project, rng.IntN(20))
			default:
				desc = fmt.Sprintf("An issue was discovered in %s. A NULL pointer dereference may occur.", project)
			}
			for i := 0; i < k; i++ {
				before := funcText(rng, names[i])
				after := before
				if i < changed {
					after = patch(rng, before)
				}
				r := curate.Raw{Project: project, CommitID: cid, CommitDate: date.Format(time.RFC3339), CVE: cve, CWE: cwe, CVEDesc: desc,
					File: files[min(i%3, 1)], Function: names[i], Before: &before, After: &after}
				if i < changed && rng.IntN(40) == 0 {
					r.After = nil // deleted by the fix
				}
				rows = append(rows, r)
			}
		}
		for i := range rows {
			if written == n {
				break
			}
			if err := enc.Encode(&rows[i]); err != nil {
				return err
			}
			written++
		}
		prev = rows
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gencurate: %d functions in %d commits to %s\n", written, commitNo, path)
	return f.Close()
}
