package suite

import "sort"

// Stats counts a suite's cases along each dimension users slice results by.
type Stats struct {
	Cases    int            `json:"cases"`
	Pairs    int            `json:"pairs"`
	Kind     map[string]int `json:"kind"`
	Label    map[string]int `json:"label"`
	CWE      map[string]int `json:"cwe"`
	Language map[string]int `json:"language"`
	Project  map[string]int `json:"project"`
	Split    map[string]int `json:"split"`
	// Year counts cases by the year of their date ("(none)" for undated ones); empty, and left
	// out of the output, when no case has a date.
	Year map[string]int `json:"year,omitempty"`
	// Status and Category count vex cases only: VEX-Bench's exploitable / not_exploitable and
	// the ground-truth category.
	Status   map[string]int `json:"status,omitempty"`
	Category map[string]int `json:"category,omitempty"`
	pairs    map[string]int
	undated  int // undated cases seen before the first dated one
}

// NewStats starts empty counts.
func NewStats() *Stats {
	return &Stats{Kind: map[string]int{}, Label: map[string]int{}, CWE: map[string]int{}, Language: map[string]int{},
		Project: map[string]int{}, Split: map[string]int{}, Year: map[string]int{}, Status: map[string]int{}, Category: map[string]int{},
		pairs: map[string]int{}}
}

// Add counts one case. A case with no value for a dimension counts as "(none)"; a case counts
// once under each of its CWEs.
func (s *Stats) Add(c *Case) {
	s.Cases++
	s.Kind[string(c.Kind)]++
	s.Label[string(c.Label)]++
	if len(c.CWE) == 0 {
		s.CWE[none]++
	}
	for _, w := range c.CWE {
		s.CWE[w]++
	}
	s.Language[orNone(c.Language)]++
	s.Project[orNone(c.Project)]++
	s.Split[orNone(c.Split)]++
	switch {
	case len(c.Date) >= 4:
		if len(s.Year) == 0 && s.undated > 0 {
			s.Year[none] = s.undated
		}
		s.Year[c.Date[:4]]++
	case len(s.Year) > 0:
		s.Year[none]++
	default:
		s.undated++
	}
	if c.Kind == KindVEX {
		cat := ""
		if c.VEX != nil {
			cat = c.VEX.Category
		}
		if c.Label == Vul { // Check keeps the label and the category consistent
			s.Status["exploitable"]++
		} else {
			s.Status["not_exploitable"]++
		}
		s.Category[orNone(cat)]++
	}
	if c.Pair != "" {
		s.pairs[c.Pair]++
		if s.pairs[c.Pair] == 2 {
			s.Pairs++
		}
	}
}

const none = "(none)"

func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}

// Dimension is one named count table, for writers.
type Dimension struct {
	Name   string
	Counts []Count // most frequent first, then by key
}

// Count is one key's count.
type Count struct {
	Key string
	N   int
}

// Dimensions returns the count tables in a stable order; year only when some case has a date,
// status and category only when the suite has vex cases.
func (s *Stats) Dimensions() []Dimension {
	type dim struct {
		name string
		m    map[string]int
	}
	dims := []dim{{"kind", s.Kind}, {"label", s.Label}, {"split", s.Split}}
	if len(s.Year) > 0 {
		dims = append(dims, dim{"year", s.Year})
	}
	dims = append(dims, dim{"language", s.Language}, dim{"cwe", s.CWE}, dim{"project", s.Project})
	if len(s.Status) > 0 {
		dims = append(dims, dim{"status", s.Status}, dim{"category", s.Category})
	}
	out := make([]Dimension, 0, len(dims))
	for _, d := range dims {
		cs := make([]Count, 0, len(d.m))
		for k, n := range d.m {
			cs = append(cs, Count{k, n})
		}
		sort.Slice(cs, func(i, j int) bool {
			if cs[i].N != cs[j].N {
				return cs[i].N > cs[j].N
			}
			return cs[i].Key < cs[j].Key
		})
		out = append(out, Dimension{Name: d.name, Counts: cs})
	}
	return out
}
