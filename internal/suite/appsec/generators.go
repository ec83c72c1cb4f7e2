package appsec

// Generators returns every generator, each written for vulnbench. Phase 2 adds the rest of the
// catalog's realistic (archetype × language) pairs here.
func Generators() []Generator {
	var gs []Generator
	gs = append(gs, injectionGenerators()...)
	gs = append(gs, accessGenerators()...)
	gs = append(gs, cryptoGenerators()...)
	gs = append(gs, infraGenerators()...)
	gs = append(gs, llmGenerators()...)
	gs = append(gs, webAuthGenerators()...)
	gs = append(gs, platformGenerators()...)
	return gs
}
