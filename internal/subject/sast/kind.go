package sast

import (
	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// ScannerKinds are the subject kinds of the scanner table (Scanners), one per tool.
func ScannerKinds() []subject.Kind[ToolConfig, *Tool] {
	minLevel := subject.Flag{Name: "min-level", Default: 1, Usage: "lowest hit level (0-5) that makes a case vul"}
	var ks []subject.Kind[ToolConfig, *Tool]
	for _, s := range Scanners() {
		k := subject.Kind[ToolConfig, *Tool]{
			Name: s.Name, Usage: s.Name, Kinds: suite.Kinds, Languages: s.Languages, Version: ToolVersion,
			Summary: s.Summary + "; jit and vex cases: one scan per snapshot, findings matched to the target",
			Needs:   subject.Needs{Binaries: []subject.Binary{{Name: s.Binary, Install: s.Install}}},
			Configure: func(_ string, v subject.Values) (ToolConfig, error) {
				c := ToolConfig{Tool: s.Name}
				if s.Levels {
					c.MinLevel = v.Int(minLevel.Name)
				}
				return c, nil
			},
			New:        func(c ToolConfig, d subject.Deps) (*Tool, error) { return NewToolIn(c, d.Sandbox) },
			Repository: ToolConfig.NeedsRepository,
			Can:        subject.Can{Describe: true},
		}
		if s.Levels {
			k.Flags = []subject.Flag{minLevel}
		}
		ks = append(ks, k)
	}
	return ks
}

// SARIFKind is the sarif:FILE subject kind.
func SARIFKind() subject.Kind[SARIFConfig, *SARIFFile] {
	return subject.Kind[SARIFConfig, *SARIFFile]{
		Name: "sarif", Usage: "sarif:FILE", Kinds: []suite.Kind{suite.KindFunction, suite.KindJIT, suite.KindAppSec}, ArgReq: true, Version: SARIFVersion,
		Summary: "scores any tool's SARIF file made elsewhere: a case is vul when a finding's file and lines meet its target (matcher version in the manifest)",
		Configure: func(arg string, _ subject.Values) (SARIFConfig, error) {
			return SARIFConfig{File: arg}, nil
		},
		New: func(c SARIFConfig, d subject.Deps) (*SARIFFile, error) { return LoadSARIF(c, d.Reading) },
		Can: subject.Can{Describe: true},
	}
}
