package curate

// SimilarityDefinition says, in the report, what the pair rule measures.
const SimilarityDefinition = "2*LCS/(len(a)+len(b)) over C tokens (identifiers and numbers whole, other non-space bytes one each): difflib's ratio with an exact LCS, formatting ignored"

// Report counts what every step of the pipeline kept and removed, and why.
type Report struct {
	Lines         int           `json:"lines"`
	Records       int           `json:"records"`
	Malformed     int           `json:"malformed"`
	Problems      []string      `json:"problems,omitempty"`
	Steps         []Step        `json:"steps"`
	Splits        []SplitReport `json:"splits"`
	MinSimilarity float64       `json:"min_similarity"`
	Similarity    string        `json:"similarity"`
}

// Step is one step: In units entered, Out left, Removed says what went and why.
type Step struct {
	Step    string         `json:"step"`
	Unit    string         `json:"unit"`
	In      int            `json:"in"`
	Out     int            `json:"out"`
	Removed []Removal      `json:"removed"`
	Detail  map[string]int `json:"detail,omitempty"`
}

// Removal is a count removed for one reason (and the commits concerned, where it applies).
type Removal struct {
	Reason  string `json:"reason"`
	Count   int    `json:"count"`
	Commits int    `json:"commits,omitempty"`
}

// SplitReport describes one split; From and To are its oldest and newest commit dates.
type SplitReport struct {
	Split    string `json:"split"`
	Cases    int    `json:"cases"`
	Vul      int    `json:"vul"`
	Ben      int    `json:"ben"`
	Pairs    int    `json:"pairs"`
	Commits  int    `json:"commits"`
	Projects int    `json:"projects"`
	From     string `json:"from,omitempty"`
	To       string `json:"to,omitempty"`
}

// nonzero keeps the removals that removed something, and is never nil (JSON shows []).
func nonzero(rs ...Removal) []Removal {
	out := []Removal{}
	for _, r := range rs {
		if r.Count > 0 {
			out = append(out, r)
		}
	}
	return out
}
