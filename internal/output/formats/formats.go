// Package formats holds the registries of presenters that the commands offer: the score
// formats (score, run, and the --format of every command that shows a report's figures) and
// the export formats (export). A format is one entry of a list here (docs/extending.md).
package formats

import (
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/output/csv"
	"github.com/vulnbench/vulnbench/internal/output/json"
	"github.com/vulnbench/vulnbench/internal/output/jsonl"
	"github.com/vulnbench/vulnbench/internal/output/md"
	"github.com/vulnbench/vulnbench/internal/output/openvex"
	"github.com/vulnbench/vulnbench/internal/output/sarif"
	"github.com/vulnbench/vulnbench/internal/output/text"
)

// Scores are the score formats, in the order help texts show them.
func Scores() *output.Registry {
	return registry(text.Presenter{}, md.Presenter{}, json.Presenter{}, csv.Presenter{})
}

// Exports are the export formats of a stored run's verdicts (report.LoadExport), in order.
func Exports() *output.Registry {
	return registry(sarif.Presenter{}, jsonl.Presenter{}, openvex.Presenter{})
}

// registry is the registry of a fixed list: a name given twice is a bug in this file, caught
// by TestRegistries.
func registry(ps ...output.Presenter) *output.Registry {
	r, err := output.NewRegistry(ps...)
	if err != nil {
		panic(err)
	}
	return r
}
