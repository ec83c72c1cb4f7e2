package runner

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/vulnbench/vulnbench/internal/manifest"
	"github.com/vulnbench/vulnbench/internal/sandbox"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/subject"
)

// NewRunID returns a sortable, readable id: the UTC start time and four random hex digits.
func NewRunID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// ReadManifest decodes a stored run's manifest.
func ReadManifest(r *store.Run) (*manifest.Manifest, error) { return manifest.Read(r.ID, r.Manifest) }

// checkVersion refuses to do units of run id with a subject kind of another version than the
// one it started with: its verdicts would mix two subjects. The one check of a local resume and
// of River's workers.
func checkVersion(id string, man *manifest.Manifest, fac subject.Factory) error {
	if man.SubjectVersion == "" || fac.Version == man.SubjectVersion {
		return nil
	}
	return fmt.Errorf("run %s: its subject %s is version %s, this vulnbench has version %s: use vulnbench %s (or a worker of that version) for this run",
		id, fac.Name, man.SubjectVersion, fac.Version, man.Version)
}

// checkSandbox refuses to do units of run id, which started with --sandbox bwrap, on a host
// whose external processes run with --sandbox none: its cases' code would see the whole host.
// (A run started with none may go on in bwrap: that only takes the host out of view.)
func checkSandbox(id string, man *manifest.Manifest, sb *sandbox.Sandbox) error {
	if man.Sandbox != string(sandbox.ModeBwrap) || sb == nil || sb.Isolates() {
		return nil
	}
	return fmt.Errorf("run %s runs its external processes in the bwrap sandbox, and --sandbox none here would show them the whole host: drop --sandbox none (its units need bubblewrap on this host)", id)
}

// limitsOf are the limits a manifest records, as the subject's.
func limitsOf(l *manifest.Limits) subject.Limits {
	if l == nil {
		return subject.Limits{}
	}
	return subject.Limits{Steps: l.Steps, Tokens: l.Tokens, CostUSD: l.CostUSD, Wall: l.Wall}
}
