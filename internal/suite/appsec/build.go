package appsec

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/cvss"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Project is the project name of every case of the AppSecBench suite.
const Project = "appsecbench"

// EncodeRecords returns records as JSONL, one record a line, HTML characters unescaped.
func EncodeRecords(recs []Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return nil, fmt.Errorf("encode record %s: %w", r.BenchmarkID, err)
		}
	}
	return b.Bytes(), nil
}

// SuiteSplit maps a record's split to a suite case's: validation becomes valid.
func SuiteSplit(split string) string {
	if split == "validation" {
		return "valid"
	}
	return split
}

// Cases turns each record into its two suite cases, vulnerable ("vul", the vulnerable code) then
// secure ("ben", the secure code), with ids ID-vul and ID-ben and the pair ID. Both carry the
// record's ground truth in appsec (every field except the two snippets, which are the cases'
// code) and source {"benchmark_id": ID}.
func Cases(recs []Record) ([]suite.Case, error) {
	cases := make([]suite.Case, 0, 2*len(recs))
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("encode record %s: %w", r.BenchmarkID, err)
		}
		var truth map[string]any
		if err := json.Unmarshal(b, &truth); err != nil {
			return nil, fmt.Errorf("decode record %s: %w", r.BenchmarkID, err)
		}
		delete(truth, "vulnerable_code")
		delete(truth, "secure_code")
		meta := map[string]any{"archetype": r.Metadata.Archetype, "framework": r.Framework,
			"difficulty": string(r.Difficulty), "file_path": r.FilePath}
		for _, side := range []struct {
			label suite.Label
			code  string
		}{{suite.Vul, r.VulnerableCode}, {suite.Ben, r.SecureCode}} {
			cases = append(cases, suite.Case{
				ID:       r.BenchmarkID + "-" + string(side.label),
				Kind:     suite.KindAppSec,
				Label:    side.label,
				Pair:     r.BenchmarkID,
				Split:    SuiteSplit(r.Split),
				Project:  Project,
				Language: r.Language,
				CWE:      []string{r.ExpectedCWE},
				Code:     side.code,
				AppSec:   truth,
				Source:   map[string]any{"benchmark_id": r.BenchmarkID},
				Meta:     meta,
			})
		}
	}
	return cases, nil
}

// Stats are a build's distributions (SPEC section 3): record counts by archetype, language,
// framework, difficulty, severity and split.
type Stats struct {
	Records    int            `json:"records"`
	Archetype  map[string]int `json:"archetype"`
	Language   map[string]int `json:"language"`
	Framework  map[string]int `json:"framework"`
	Difficulty map[string]int `json:"difficulty"`
	Severity   map[string]int `json:"severity"`
	Split      map[string]int `json:"split"`
}

// NewStats counts recs.
func NewStats(recs []Record) Stats {
	s := Stats{Records: len(recs), Archetype: map[string]int{}, Language: map[string]int{},
		Framework: map[string]int{}, Difficulty: map[string]int{}, Severity: map[string]int{}, Split: map[string]int{}}
	for _, r := range recs {
		s.Archetype[r.Metadata.Archetype]++
		s.Language[r.Language]++
		s.Framework[r.Language+"/"+r.Framework]++
		s.Difficulty[string(r.Difficulty)]++
		s.Severity[r.ExpectedSeverity]++
		s.Split[r.Split]++
	}
	return s
}

// StatsCount is one key's count in a dimension.
type StatsCount struct {
	Key string
	N   int
}

// StatsDimension is one named distribution.
type StatsDimension struct {
	Name   string
	Counts []StatsCount
}

// Dimensions returns the distributions in a stable order: archetypes, languages and frameworks by
// key; difficulty, severity and split in their enum order.
func (s Stats) Dimensions() []StatsDimension {
	diffs := make([]string, 0, 5)
	for _, d := range Difficulties() {
		diffs = append(diffs, string(d))
	}
	dims := []struct {
		name  string
		m     map[string]int
		order []string
	}{
		{"archetype", s.Archetype, nil}, {"language", s.Language, nil}, {"framework", s.Framework, nil},
		{"difficulty", s.Difficulty, diffs}, {"severity", s.Severity, cvss.Severities()}, {"split", s.Split, Splits()},
	}
	out := make([]StatsDimension, 0, len(dims))
	for _, d := range dims {
		keys := make([]string, 0, len(d.m))
		for k := range d.m {
			keys = append(keys, k)
		}
		rank := func(k string) int {
			if i := slices.Index(d.order, k); i >= 0 {
				return i
			}
			return len(d.order)
		}
		slices.SortFunc(keys, func(a, b string) int {
			if ra, rb := rank(a), rank(b); ra != rb {
				return ra - rb
			}
			return strings.Compare(a, b)
		})
		dim := StatsDimension{Name: d.name}
		for _, k := range keys {
			dim.Counts = append(dim.Counts, StatsCount{k, d.m[k]})
		}
		out = append(out, dim)
	}
	return out
}

// WriteJSON writes the statistics as one indented JSON object (map keys sorted).
func (s Stats) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode stats: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write stats: %w", err)
	}
	return nil
}

// WriteCSV writes the statistics as CSV rows dimension,key,records,share.
func (s Stats) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"dimension", "key", "records", "share"})
	for _, d := range s.Dimensions() {
		for _, c := range d.Counts {
			_ = cw.Write([]string{d.Name, c.Key, strconv.Itoa(c.N), strconv.FormatFloat(s.share(c.N), 'f', 4, 64)})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write stats: %w", err)
	}
	return nil
}

// WriteMarkdown writes the statistics as one Markdown table per dimension.
func (s Stats) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# AppSecBench statistics\n\n%d records.\n", s.Records)
	for _, d := range s.Dimensions() {
		fmt.Fprintf(&b, "\n## %s\n\n| %s | records | share |\n|---|---:|---:|\n", d.Name, d.Name)
		for _, c := range d.Counts {
			fmt.Fprintf(&b, "| %s | %d | %.1f%% |\n", c.Key, c.N, 100*s.share(c.N))
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write stats: %w", err)
	}
	return nil
}

func (s Stats) share(n int) float64 {
	if s.Records == 0 {
		return 0
	}
	return float64(n) / float64(s.Records)
}
