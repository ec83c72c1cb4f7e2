package sarif

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// GitHub code scanning's limits on an uploaded SARIF file ("SARIF support for code scanning" and
// "SARIF results exceed limits" in GitHub's documentation): a file over one is rejected.
const (
	GitHubMaxRuns          = 20
	GitHubMaxResultsPerRun = 25_000
	GitHubMaxRulesPerRun   = 25_000
	GitHubMaxLocations     = 1_000
	GitHubMaxTagsPerRule   = 20
	GitHubMaxGzippedBytes  = 10 << 20
	gitHubSupportedVersion = "2.1.0"
)

// CheckGitHub reports every way b falls short of what GitHub code scanning needs to accept and
// show a SARIF file: version 2.1.0 with a $schema; at most 20 runs, each with a tool driver's
// name, at most 25,000 rules (each an id, shortDescription, fullDescription and help text, at
// most 20 tags) and 25,000 results; each result a ruleId, a message text and 1 to 1,000
// locations, each a physical location with a relative artifact URI and a region from line 1;
// partialFingerprints on every result (an API upload without them shows duplicates); 10 MB
// gzipped at most.
func CheckGitHub(b []byte) error {
	var doc struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string    `json:"id"`
						ShortDescription *wMessage `json:"shortDescription"`
						FullDescription  *wMessage `json:"fullDescription"`
						Help             *wMessage `json:"help"`
						Properties       struct {
							Tags []string `json:"tags"`
						} `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID              string            `json:"ruleId"`
				Message             wMessage          `json:"message"`
				Locations           []wLocation       `json:"locations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("github: %w", err)
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if doc.Version != gitHubSupportedVersion || doc.Schema == "" {
		bad("version %q, $schema %q: GitHub reads SARIF 2.1.0 with its $schema", doc.Version, doc.Schema)
	}
	if len(doc.Runs) == 0 || len(doc.Runs) > GitHubMaxRuns {
		bad("%d runs: GitHub takes 1 to %d", len(doc.Runs), GitHubMaxRuns)
	}
	for i, run := range doc.Runs {
		d := run.Tool.Driver
		if d.Name == "" {
			bad("run %d: no tool.driver.name", i)
		}
		if len(d.Rules) > GitHubMaxRulesPerRun {
			bad("run %d: %d rules, more than %d", i, len(d.Rules), GitHubMaxRulesPerRun)
		}
		for _, r := range d.Rules {
			for name, m := range map[string]*wMessage{"shortDescription.text": r.ShortDescription, "fullDescription.text": r.FullDescription, "help.text": r.Help} {
				if r.ID == "" || m == nil || m.Text == "" {
					bad("run %d: rule %q lacks id or %s", i, r.ID, name)
				}
			}
			if len(r.Properties.Tags) > GitHubMaxTagsPerRule {
				bad("run %d: rule %q has %d tags, more than %d", i, r.ID, len(r.Properties.Tags), GitHubMaxTagsPerRule)
			}
		}
		if len(run.Results) > GitHubMaxResultsPerRun {
			bad("run %d: %d results, more than %d", i, len(run.Results), GitHubMaxResultsPerRun)
		}
		for j, res := range run.Results {
			where := fmt.Sprintf("run %d result %d", i, j)
			if res.RuleID == "" || res.Message.Text == "" {
				bad("%s: no ruleId or message.text", where)
			}
			if len(res.PartialFingerprints) == 0 {
				bad("%s: no partialFingerprints", where)
			}
			if len(res.Locations) == 0 || len(res.Locations) > GitHubMaxLocations {
				bad("%s: %d locations: GitHub shows a result at 1 to %d", where, len(res.Locations), GitHubMaxLocations)
			}
			for _, l := range res.Locations {
				if err := checkGitHubLocation(l); err != nil {
					bad("%s: %v", where, err)
				}
			}
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(b)
	_ = zw.Close()
	if gz.Len() > GitHubMaxGzippedBytes {
		bad("%d bytes gzipped, more than %d", gz.Len(), GitHubMaxGzippedBytes)
	}
	return errors.Join(errs...)
}

func checkGitHubLocation(l wLocation) error {
	uri := l.PhysicalLocation.ArtifactLocation.URI
	u, err := url.Parse(uri)
	switch {
	case uri == "":
		return errors.New("a location without physicalLocation.artifactLocation.uri")
	case err != nil || u.Scheme != "" || strings.HasPrefix(uri, "/"):
		return fmt.Errorf("artifact %q is not a path relative to the repository", uri)
	case l.PhysicalLocation.Region == nil || l.PhysicalLocation.Region.StartLine < 1:
		return fmt.Errorf("artifact %q: no region.startLine", uri)
	}
	return nil
}
