// Package formats holds the one registry of presenters (All): every format of every command.
// A command offers the formats that write its document (output.Registry.For), so a format added
// here reaches every command whose document it writes: the general formats (text, md, json, csv,
// html, tsv) write every document, the export formats (sarif, jsonl, openvex) a run's export. A
// format is its own package under internal/output and one line here (docs/extending.md).
package formats

import (
	"github.com/vulnbench/vulnbench/internal/output"
	"github.com/vulnbench/vulnbench/internal/output/csv"
	"github.com/vulnbench/vulnbench/internal/output/html"
	"github.com/vulnbench/vulnbench/internal/output/json"
	"github.com/vulnbench/vulnbench/internal/output/jsonl"
	"github.com/vulnbench/vulnbench/internal/output/md"
	"github.com/vulnbench/vulnbench/internal/output/openvex"
	"github.com/vulnbench/vulnbench/internal/output/sarif"
	"github.com/vulnbench/vulnbench/internal/output/text"
	"github.com/vulnbench/vulnbench/internal/output/tsv"
)

// All is every format, in the order help texts show them.
func All() *output.Registry {
	return registry(
		text.Presenter{},
		md.Presenter{},
		json.Presenter{},
		csv.Presenter{},
		html.Page{},
		tsv.Presenter{},
		sarif.Presenter{},
		jsonl.Presenter{},
		openvex.Presenter{},
	)
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
