package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/deps"
	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// Bounds of the observations (each also passes agent.Bound).
const (
	MaxDeps        = 50   // find_dependency
	MaxSuggestions = 10   // find_dependency's near names
	MaxDetails     = 4000 // get_advisory: bytes of details per record
	MaxVersions    = 20   // get_advisory: listed versions per package
	MaxReferences  = 10   // get_advisory
	MaxAdvisories  = 5    // get_advisory: records per answer
)

// FindDependency is find_dependency over s: a package in the manifests, lockfiles and vendored
// modules of every module of the tree. The dependency facts are read once, at its first call.
func FindDependency(s *snapshot.Snapshot) agent.Tool {
	t := &dependencies{snap: s}
	return agent.Tool{Name: "find_dependency", Description: "Finds a package in the project's manifests, lockfiles and vendored modules (every module of the repository): its version or version range, the manifest and line, and whether it is a direct dependency.",
		Parameters: agent.StringParams(map[string]string{"package": "the package name: a Go module path, a PyPI name, a Maven group:artifact (or artifact), an npm name"}, "package"),
		Run: func(ctx context.Context, raw json.RawMessage) (string, error) {
			var a struct{ Package string }
			if err := json.Unmarshal(raw, &a); err != nil {
				return "The arguments could not be read: " + err.Error(), nil
			}
			return t.FindDependency(ctx, a.Package)
		}}
}

// GetAdvisory is get_advisory over db (nil: it says there are no advisories).
func GetAdvisory(db *advisory.DB) agent.Tool {
	return agent.Tool{Name: "get_advisory", Description: "Returns the advisory of a vulnerability id (CVE, GHSA or GO- id; aliases are followed): summary, details, affected packages and version ranges, vulnerable symbols when known, references.",
		Parameters: agent.StringParams(map[string]string{"id": "the vulnerability id, e.g. CVE-2024-1234"}, "id"),
		Run: func(_ context.Context, raw json.RawMessage) (string, error) {
			var a struct{ ID string }
			if err := json.Unmarshal(raw, &a); err != nil {
				return "The arguments could not be read: " + err.Error(), nil
			}
			return getAdvisory(db, a.ID)
		}}
}

// dependencies are the tree's dependency facts, read once.
type dependencies struct {
	snap  *snapshot.Snapshot
	once  sync.Once
	facts *deps.Facts
	err   error
}

// FindDependency is find_dependency's observation. An error is a walk that failed outright.
func (t *dependencies) FindDependency(ctx context.Context, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return `The argument "package" is required: a package name.`, nil
	}
	t.once.Do(func() {
		fsys, ok := t.snap.FS().(deps.FS)
		if !ok {
			t.err = fmt.Errorf("the snapshot's FS cannot list directories")
			return
		}
		t.facts, t.err = deps.Extract(ctx, fsys)
	})
	if t.err != nil {
		return "", fmt.Errorf("find_dependency: %w", t.err)
	}
	found := t.facts.Find(name)
	var b strings.Builder
	if len(found) == 0 {
		fmt.Fprintf(&b, "No manifest, lockfile or vendored module of the repository names %s.", name)
		var near []string
		low := strings.ToLower(name)
		if i := strings.LastIndexAny(low, "/:"); i >= 0 {
			low = low[i+1:]
		}
		for _, d := range t.facts.Deps {
			n := d.Ecosystem + " " + d.Name
			if low != "" && strings.Contains(strings.ToLower(d.Name), low) && !slices.Contains(near, n) {
				near = append(near, n)
			}
		}
		if len(near) > 0 {
			if len(near) > MaxSuggestions {
				near = append(near[:MaxSuggestions], fmt.Sprintf("[cut: %d more]", len(near)-MaxSuggestions))
			}
			b.WriteString("\nSimilar names: " + strings.Join(near, ", "))
		}
		fmt.Fprintf(&b, "\nManifests read (%d):", len(t.facts.Manifests))
		for i, m := range t.facts.Manifests {
			if i == MaxDeps {
				fmt.Fprintf(&b, " [cut: %d more]", len(t.facts.Manifests)-MaxDeps)
				break
			}
			b.WriteString(" " + m)
		}
		if len(t.facts.Manifests) == 0 {
			b.WriteString(" none")
		}
	} else {
		fmt.Fprintf(&b, "%s: %d entries\n", name, len(found))
		for i, d := range found {
			if i == MaxDeps {
				fmt.Fprintf(&b, "[cut: %d more entries not shown]\n", len(found)-MaxDeps)
				break
			}
			b.WriteString(describe(d) + "\n")
		}
	}
	for i, p := range t.facts.Problems {
		if i == 5 {
			fmt.Fprintf(&b, "\n[cut: %d more unreadable manifests]", len(t.facts.Problems)-5)
			break
		}
		b.WriteString("\nunreadable: " + p.Error())
	}
	return agent.Bound(strings.TrimRight(b.String(), "\n"), 0, maxObservation), nil
}

func describe(d deps.Dependency) string {
	v := d.Version
	if v == "" {
		v = "range " + d.Range
		if d.Range == "" {
			v = "no version given"
		}
	}
	loc := d.Manifest
	if d.Line > 0 {
		loc = fmt.Sprintf("%s:%d", d.Manifest, d.Line)
	}
	how := d.Direct
	if how == deps.Unknown {
		how = "direct or indirect not known"
	}
	s := fmt.Sprintf("%s %s %s at %s (%s", d.Ecosystem, d.Name, v, loc, how)
	if len(d.Scopes) > 0 {
		s += "; scopes " + strings.Join(d.Scopes, ", ")
	}
	return s + ")"
}

// getAdvisory is get_advisory's observation. An error is a record that cannot be read.
func getAdvisory(db *advisory.DB, id string) (string, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return `The argument "id" is required: a CVE, GHSA or GO- id.`, nil
	}
	if db == nil {
		return "No advisories are available to this run.", nil
	}
	as, err := db.Related(id)
	if err != nil {
		return "", fmt.Errorf("get_advisory %s: %w", id, err)
	}
	if len(as) == 0 {
		return "No advisory is known for " + id + ".", nil
	}
	var b strings.Builder
	for i, a := range as {
		if i == MaxAdvisories {
			fmt.Fprintf(&b, "[cut: %d more records not shown]\n", len(as)-MaxAdvisories)
			break
		}
		if i > 0 {
			b.WriteString("\n")
		}
		writeAdvisory(&b, a)
	}
	return agent.Bound(strings.TrimRight(b.String(), "\n"), 0, maxObservation), nil
}

func writeAdvisory(b *strings.Builder, a *advisory.Advisory) {
	fmt.Fprintf(b, "%s", a.ID)
	if len(a.Aliases) > 0 {
		fmt.Fprintf(b, " (aliases: %s)", strings.Join(a.Aliases, ", "))
	}
	b.WriteString("\n")
	if a.IsWithdrawn() {
		fmt.Fprintf(b, "WITHDRAWN on %s\n", a.Withdrawn.Format("2006-01-02"))
	}
	if a.Summary != "" {
		b.WriteString("Summary: " + a.Summary + "\n")
	}
	if a.Details != "" {
		d := strings.TrimSpace(a.Details)
		if len(d) > MaxDetails {
			d = strings.ToValidUTF8(d[:MaxDetails], "") + fmt.Sprintf(" [cut: %d more bytes of details]", len(a.Details)-MaxDetails)
		}
		b.WriteString("Details: " + d + "\n")
	}
	for _, af := range a.Affected {
		fmt.Fprintf(b, "Affected: %s %s\n", af.Ecosystem, af.Package)
		for _, r := range af.Ranges {
			fmt.Fprintf(b, "  %s range: %s\n", r.Type, r.EventsText())
		}
		if n := len(af.Versions); n > 0 {
			vs := af.Versions
			if n > MaxVersions {
				vs = vs[:MaxVersions]
			}
			fmt.Fprintf(b, "  versions (%d): %s", n, strings.Join(vs, ", "))
			if n > MaxVersions {
				fmt.Fprintf(b, " [cut: %d more]", n-MaxVersions)
			}
			b.WriteString("\n")
		}
		if len(af.Symbols) > 0 {
			fmt.Fprintf(b, "  vulnerable symbols: %s\n", strings.Join(af.Symbols, ", "))
		}
	}
	for i, r := range a.References {
		if i == MaxReferences {
			fmt.Fprintf(b, "[cut: %d more references]\n", len(a.References)-MaxReferences)
			break
		}
		b.WriteString("Reference: " + r + "\n")
	}
}
