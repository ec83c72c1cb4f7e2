package appsec

// The internals the external tests (package appsec_test, which may import
// internal/suite/appsec/parsers for the tree-sitter checkers) reach.
var (
	SnippetTemplates = snippetTemplates
	GeneratorSpecs   = generatorSpecs
	CheckTemplate    = checkTemplate
	CheckTemplatesFS = checkTemplates
)
