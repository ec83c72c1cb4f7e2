package appsec

// Generators returns every generator, each written for vulnbench, with its snippets read from the
// embedded templates (see TemplateFile). The lists in gen_*.go hold the rest: archetype, target,
// levels, file path, and the prose of explanation, exploit and fix.
func Generators() ([]Generator, error) {
	return withSnippets(snippetTemplates(), generatorSpecs())
}

// generatorSpecs are the generators without their snippets.
func generatorSpecs() []Generator {
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
