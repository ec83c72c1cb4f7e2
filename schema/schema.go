// Package schema embeds the JSON Schemas of vulnbench's file formats and compiles them.
package schema

import (
	"bytes"
	_ "embed"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed case.schema.json
var caseSchema []byte

//go:embed verdict.schema.json
var verdictSchema []byte

//go:embed board.schema.json
var boardSchema []byte

// CompileBoard compiles the schema of `vulnbench board --format json`.
func CompileBoard() (*jsonschema.Schema, error) {
	return compile("board", boardSchema)
}

// CaseSchema returns the schema of one suite line, the bytes as shipped.
func CaseSchema() []byte { return caseSchema }

// VerdictSchema returns the schema of one predictions JSONL line (a verdict), the bytes as shipped.
func VerdictSchema() []byte { return verdictSchema }

// CompileCase compiles the case schema, with format assertions (date-time) on.
func CompileCase() (*jsonschema.Schema, error) {
	return compile("case", caseSchema)
}

// CompileVerdict compiles the verdict schema: one line of a predictions file.
func CompileVerdict() (*jsonschema.Schema, error) {
	return compile("verdict", verdictSchema)
}

// compile compiles the embedded schema NAME.schema.json, with format assertions on.
func compile(name string, data []byte) (*jsonschema.Schema, error) {
	s, err := compileDoc("https://vulnbench.dev/schema/"+name+".schema.json", data)
	if err != nil {
		return nil, fmt.Errorf("%s schema: %w", name, err)
	}
	return s, nil
}

func compileDoc(url string, data []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}
