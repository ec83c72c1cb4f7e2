// Package builtin is the explicit list of the subject kinds vulnbench ships. Each kind is
// declared by its own package (its flags, its typed configuration, its version, the case kinds
// and languages it judges, what it needs); this list only orders them.
package builtin

import (
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/subject/agentcli"
	"github.com/vulnbench/vulnbench/internal/subject/baseline"
	"github.com/vulnbench/vulnbench/internal/subject/depaug"
	"github.com/vulnbench/vulnbench/internal/subject/govulncheck"
	"github.com/vulnbench/vulnbench/internal/subject/llmsubj"
	"github.com/vulnbench/vulnbench/internal/subject/memprobe"
	"github.com/vulnbench/vulnbench/internal/subject/predictions"
	"github.com/vulnbench/vulnbench/internal/subject/react"
	"github.com/vulnbench/vulnbench/internal/subject/sast"
	"github.com/vulnbench/vulnbench/internal/subject/sca"
	"github.com/vulnbench/vulnbench/internal/subject/vexagent"
)

// Registry lists every subject kind vulnbench ships, in the order --help shows them.
func Registry() *subject.Registry {
	fs := []subject.Factory{baseline.RandomKind().Factory(), baseline.ConstantKind().Factory(), predictions.Kind().Factory(),
		llmsubj.Kind().Factory(), depaug.Kind().Factory(), react.Kind().Factory()}
	for _, k := range sast.ScannerKinds() {
		fs = append(fs, k.Factory())
	}
	fs = append(fs, sast.SARIFKind().Factory(), sca.Kind().Factory(), govulncheck.Kind().Factory(), vexagent.Kind().Factory(), memprobe.Kind().Factory())
	for _, k := range agentcli.Kinds() {
		fs = append(fs, k.Factory())
	}
	return subject.NewRegistry(fs...)
}
