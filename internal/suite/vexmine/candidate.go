package vexmine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vulnbench/vulnbench/internal/suite"
)

// languages maps an ecosystem to the language of its cases (VEX-Bench's names).
var languages = map[string]string{"Go": "go", "PyPI": "python", "Maven": "java", "npm": "javascript"}

// candidate makes the case of one fixed vulnerability.
func (m *miner) candidate(c *commit, msg string, parentDate time.Time, b *Bump, vuln string, recs []*record, others []Bump) *suite.Case {
	parent := c.parents[0]
	var ids, cves []string
	for _, r := range recs {
		if !slices.Contains(ids, r.id) {
			ids = append(ids, r.id)
		}
		for _, x := range r.cves {
			if !slices.Contains(cves, x) {
				cves = append(cves, x)
			}
		}
	}
	slices.Sort(ids)
	slices.Sort(cves)
	mi := &Mined{Miner: "vexmine/" + Version, FixCommit: c.id, FixDate: c.time.Format(time.RFC3339),
		FixMessage: clipText(msg, 4096), Vuln: vuln, Advisories: ids, CVEs: cves, Bump: *b, Others: others}
	names := append([]string{vuln}, cves...)
	for _, r := range recs {
		names = append(names, r.id)
		names = append(names, r.aliases...)
	}
	if mentions(msg, names) {
		mi.NamesAdvisory, mi.NamedIn = true, "message"
	} else if merged, err := m.g.merged(m.ctx, c, m.opts.MaxMerged); err == nil {
		for _, id := range merged {
			if text, err := m.g.message(id); err == nil && mentions(text, names) {
				mi.NamesAdvisory, mi.NamedIn = true, "merged commit "+id
				break
			}
		}
	}
	n := prNumber(msg)
	if x := refPR.FindStringSubmatch(c.source); x != nil {
		n, _ = strconv.Atoi(x[1])
		mi.Ref = c.source
	}
	if n > 0 {
		mi.PullRequest = n
		if strings.HasPrefix(m.repo.URL, "https://github.com/") {
			mi.PRURL = m.repo.URL + "/pull/" + strconv.Itoa(n)
		}
	}
	owner, name, _ := strings.Cut(m.repo.Project, "/")
	id := fmt.Sprintf("%s-%s-%s-%s", owner, strings.ReplaceAll(name, "/", "-"), parent[:min(7, len(parent))], vuln)
	cs := &suite.Case{ID: id, Kind: suite.KindVEX, Project: m.repo.Project, Commit: parent,
		Date: parentDate.UTC().Format(time.RFC3339), Language: languages[b.Ecosystem], CVE: vuln,
		Repo:   &suite.Repo{URL: m.repo.URL, Commit: parent},
		VEX:    &suite.VEX{Package: b.Package, Ecosystem: b.Ecosystem, Advisory: ids[0]},
		Source: map[string]any{"miner": "vexmine", "fix_commit": c.id},
		Meta:   map[string]any{"mined": mi, "hints": map[string]Hint{"sca": scaHint(b, ids)}},
	}
	return cs
}

// scaHint is what version matching (the sca subject, any dependency scanner) answers at the
// affected snapshot: the manifest pins a version the advisories say is affected, so vulnerable,
// whatever the code does with the package; VEX-Bench's point is how often that is wrong.
func scaHint(b *Bump, ids []string) Hint {
	where := ""
	for _, mc := range b.Manifests {
		if mc.OldLine > 0 {
			where = fmt.Sprintf(" (%s:%d)", mc.Path, mc.OldLine)
			break
		}
	}
	return Hint{Answer: suite.VEXVulnerable, Why: fmt.Sprintf("version matching: %s %s%s is in an affected range of %s",
		b.Package, b.Old, where, strings.Join(ids, ", "))}
}

// mentions reports whether text names one of ids, as a whole word, case-insensitively.
func mentions(text string, ids []string) bool {
	low := strings.ToLower(text)
	for _, id := range ids {
		id = strings.ToLower(strings.TrimSpace(id))
		if id == "" {
			continue
		}
		for i := 0; ; {
			j := strings.Index(low[i:], id)
			if j < 0 {
				break
			}
			at := i + j
			end := at + len(id)
			if (at == 0 || !idChar(low[at-1])) && (end == len(low) || !idChar(low[end])) {
				return true
			}
			i = at + 1
		}
	}
	return false
}

func idChar(b byte) bool { return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b == '-' }

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// uniqueIDs makes repeated case ids unique with a -2, -3 ... suffix, in order.
func uniqueIDs(cs []*suite.Case) {
	seen := map[string]int{}
	for _, c := range cs {
		seen[c.ID]++
		if n := seen[c.ID]; n > 1 {
			c.ID += "-" + strconv.Itoa(n)
		}
	}
}
